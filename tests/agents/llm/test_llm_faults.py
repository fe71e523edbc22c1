"""What an LLM attempt costs when the endpoint fails, and billing handed over as it happens."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import pytest

from agentmetrology.agents.llm import ChatPolicy, LLMTarget, Prices
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.records import BillableAttempt, Episode, canonical_json
from agentmetrology.records.clock import FakeClock
from support.comtrade_runs import COMTRADE
from support.fake_openai import (
    FakeOpenAI,
    http_error,
    raw_server,
    read_request,
    text,
    tool_calls,
)

# Every test here runs on both HTTP paths (lean and sdk): same behaviour, asserted on both.
pytestmark = pytest.mark.usefixtures("both_http_clients")

PRICED = Prices(input_per_m=1.0, output_per_m=2.0)


def _episode(base_url: str, *, prices: Prices = PRICED, max_retries: int = 1,
             sink: Any = None, timeout: float = 5.0) -> Episode:
    async def go() -> Episode:
        target = LLMTarget("llm:m", "m", base_url, None, {}, prices, max_retries, timeout)
        policy = ChatPolicy(target, clock=FakeClock())
        if sink is not None:
            policy.set_attempt_sink(sink)
        ep = await run_episode_async(COMTRADE, ComtradeEnv("T1_single_page", 0), policy, "L2")
        await policy.aclose()
        return ep

    return asyncio.run(go())


def test_connection_refused_costs_zero_and_names_the_endpoint(refusing_port: int) -> None:
    # No price table: a request that never reached the provider still costs a known 0.
    url = f"http://user:hunter2pass@127.0.0.1:{refusing_port}/v1"
    ep = _episode(url, prices=Prices())
    assert ep.termination.kind == "infra_error"
    assert ep.termination.detail.startswith(
        f"connection refused by 127.0.0.1:{refusing_port}: retry budget exhausted")
    assert [a.outcome for a in ep.usage.attempts] == ["connection_error"] * 2
    assert [(a.input_tokens, a.output_tokens, a.cost) for a in ep.usage.attempts] == \
        [(0, 0, 0.0)] * 2
    assert ep.usage.cost == 0.0
    notes = ep.meta["policy_notes"]
    assert notes["failure"] == {"outcome": "connection_error",
                                "reason": f"connection refused by 127.0.0.1:{refusing_port}"}
    assert b"hunter2pass" not in canonical_json(ep)  # the endpoint, never its credentials


def test_a_dropped_connection_may_have_been_billed_so_its_cost_is_unknown() -> None:
    # A server that reads the request and closes the connection without answering.
    with raw_server(lambda conn: conn.recv(65536)) as url:
        ep = _episode(url)
    port = url.split(":")[2].split("/")[0]
    assert [a.outcome for a in ep.usage.attempts] == ["connection_lost"] * 2
    assert all(a.cost is None and a.input_tokens is None for a in ep.usage.attempts)
    assert ep.usage.cost is None
    assert ep.termination.detail.startswith(
        f"127.0.0.1:{port} dropped the connection before answering")


def test_every_attempt_reaches_the_sink_when_its_response_arrives() -> None:
    seen: list[tuple[BillableAttempt, int]] = []
    with FakeOpenAI([tool_calls(("get_task_info", {})), text("done")]) as srv:
        ep = _episode(srv.base_url, sink=lambda a: seen.append((a, len(srv.requests))))
    assert [a for a, _ in seen] == ep.usage.attempts and len(seen) == 2
    assert [n for _, n in seen] == [1, 2]  # handed over before the next request was sent


def test_a_sink_that_cannot_record_ends_the_episode_as_infra_error() -> None:
    def broken(_: BillableAttempt) -> None:
        raise OSError("disk full")

    with FakeOpenAI([tool_calls(("get_task_info", {})), text("done")]) as srv:
        ep = _episode(srv.base_url, sink=broken)
        sent = len(srv.requests)
    assert ep.termination.kind == "infra_error" and sent == 1  # no further request paid for
    assert "cannot record a billable attempt (OSError: disk full)" in ep.termination.detail


@pytest.mark.parametrize("broken_sink", [False, True])
def test_a_request_cut_in_flight_reaches_the_sink_with_an_unknown_cost(
        broken_sink: bool) -> None:
    # A server that reads the request and never answers: the episode is cancelled while the
    # request is in flight (a campaign's hard deadline, or Ctrl-C). The request was sent and
    # may be billed, so it is handed over as `cancelled`, cost unknown, never lost as a 0.
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    port = srv.getsockname()[1]
    seen: list[BillableAttempt] = []
    received, release = threading.Event(), threading.Event()

    def serve() -> None:
        conn, _ = srv.accept()
        conn.recv(65536)
        received.set()
        release.wait(30)  # hold the connection open, unanswered, until the test ends
        conn.close()

    def sink(a: BillableAttempt) -> None:
        seen.append(a)
        if broken_sink:
            raise OSError("disk full")

    async def go() -> None:
        target = LLMTarget("llm:m", "m", f"http://127.0.0.1:{port}/v1", None, {}, PRICED, 1,
                           60.0)
        policy = ChatPolicy(target, clock=FakeClock())
        policy.set_attempt_sink(sink)
        task = asyncio.ensure_future(run_episode_async(
            COMTRADE, ComtradeEnv("T1_single_page", 0), policy, "L2"))
        while not received.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):  # the cancellation goes on, sink or not
            await task
        await policy.aclose()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        asyncio.run(go())
    finally:
        release.set()
        srv.close()
    assert [(a.attempt_id, a.outcome, a.input_tokens, a.output_tokens, a.cost)
            for a in seen] == [("r001.1", "cancelled", None, None, None)]


def test_a_null_message_is_an_unusable_response_never_the_agents_text_turn() -> None:
    # A 200 whose only choice has no message is the provider's failure: a measurement failure
    # after the retries, on both paths alike, never an agent that stopped without submitting.
    null = {"status": 200, "body": {"id": "x", "choices": [{"index": 0, "message": None}]}}
    with FakeOpenAI([null, null]) as srv:
        ep = _episode(srv.base_url)
    assert ep.termination.kind == "infra_error"
    assert [a.outcome for a in ep.usage.attempts] == ["invalid_response"] * 2
    assert ep.termination.detail.endswith(
        "last error: unusable response body: Expected `object`, got `null` - at "
        "`$.choices[0].message`")


def test_a_failure_names_its_reason_once(refusing_port: int) -> None:
    # The reason leads the detail; "last error" follows only when it says something more.
    # Before: "connection refused by 127.0.0.1:P: retry budget exhausted ... ; last error:
    # connection refused by 127.0.0.1:P" (the same words twice, in every output).
    refused = _episode(f"http://127.0.0.1:{refusing_port}/v1").termination.detail
    assert refused.count(f"connection refused by 127.0.0.1:{refusing_port}") == 1
    assert refused == (f"connection refused by 127.0.0.1:{refusing_port}: retry budget "
                       "exhausted for model 'm' after 2 attempts (connection_error, "
                       "connection_error)")
    with FakeOpenAI([{"status": 200, "body": {}, "delay": 0.5}] * 2) as srv:
        timed_out = _episode(srv.base_url, timeout=0.2).termination.detail
    assert timed_out.count("no response from") == 1, timed_out
    with FakeOpenAI([http_error(500, "boom")] * 2) as srv:
        server = _episode(srv.base_url).termination.detail
    assert server.endswith("; last error: HTTP 500: boom")  # a detail the reason lacks stays


def test_a_body_cut_short_says_how_far_it_got() -> None:
    # A 200 whose connection closes 40 bytes into a 238-byte body. Before: the lean path said
    # "ClientPayloadError: ... <ContentLengthError: 400, message=...>" (a 400 no server sent),
    # the SDK path only "APIConnectionError: Connection error.".
    def answer(conn: socket.socket) -> None:
        read_request(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                     b"content-length: 238\r\n\r\n" + b'{"id": "x", "choices": [' + b" " * 16)
        conn.shutdown(socket.SHUT_WR)  # an orderly close mid-body, not a reset

    with raw_server(answer) as url:
        ep = _episode(url)
    detail = ep.termination.detail
    assert [a.outcome for a in ep.usage.attempts] == ["connection_lost"] * 2
    last = detail.split("; last error: ", 1)[1]
    assert "40" in last and "238" in last, last
    assert "400" not in last and "Connection error." not in last, last
    assert not last.endswith("."), last  # it ends a sentence of ours: "…bytes).)" read badly
