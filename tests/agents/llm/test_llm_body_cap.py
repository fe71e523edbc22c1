"""A response body past MAX_RESPONSE_BYTES is the provider's unusable answer, read no further.

A hostile or broken endpoint can send a body without end (chunked, no length) or announce one of
gigabytes; read whole, it held the run's memory and CPU (redaction over every byte) until the
machine gave out. Both HTTP paths stop reading at the cap.
"""

from __future__ import annotations

import asyncio
import socket

import pytest

from agentmetrology.agents.llm import ChatPolicy, LLMTarget, Prices, body_cap
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.records import Episode
from agentmetrology.records.clock import FakeClock
from support.comtrade_runs import COMTRADE
from support.fake_openai import FakeOpenAI, raw_server, read_request, text

pytestmark = pytest.mark.usefixtures("both_http_clients")

CAP = 20_000


def _episode(base_url: str) -> Episode:
    async def go() -> Episode:
        target = LLMTarget("llm:m", "m", base_url, None, {},
                           Prices(input_per_m=1.0, output_per_m=2.0), 1, 5.0)
        policy = ChatPolicy(target, clock=FakeClock())
        ep = await run_episode_async(COMTRADE, ComtradeEnv("T1_single_page", 0), policy, "L2")
        await policy.aclose()
        return ep

    return asyncio.run(go())


def test_a_body_announced_past_the_cap_is_an_unusable_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(body_cap, "MAX_RESPONSE_BYTES", CAP)
    with FakeOpenAI([text("A" * (2 * CAP))] * 2) as srv:
        ep = _episode(srv.base_url)
    assert ep.termination.kind == "infra_error", ep.termination.detail
    assert ep.termination.detail.startswith("unusable responses from 127.0.0.1:")
    assert "response body larger than 20000 bytes" in ep.termination.detail
    assert [a.outcome for a in ep.usage.attempts] == ["invalid_response"] * 2
    # It may have been billed (the provider produced it): cost and tokens unknown, never 0.
    assert all(a.cost is None and a.input_tokens is None for a in ep.usage.attempts)


def test_a_body_without_end_is_cut_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(body_cap, "MAX_RESPONSE_BYTES", CAP)
    sent: list[int] = []

    def answer(conn: socket.socket) -> None:  # chunked, no length: 64 KiB until the client goes
        read_request(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                     b"transfer-encoding: chunked\r\n\r\n")
        chunk = b"%x\r\n%s\r\n" % (1 << 16, b" " * (1 << 16))
        n = 0
        try:
            while n < 4000:  # 256 MiB at most: a client that reads it all fails the test
                conn.sendall(chunk)
                n += 1
        except OSError:
            pass
        sent.append(n)

    with raw_server(answer) as url:
        ep = _episode(url)
    assert ep.termination.kind == "infra_error", ep.termination.detail
    assert "response body larger than 20000 bytes" in ep.termination.detail
    assert [a.outcome for a in ep.usage.attempts] == ["invalid_response"] * 2
    assert sent and max(sent) < 4000  # the client stopped reading long before the end
