"""The episode deadline counts the agent's time, never the provider's: back-off waits, failed
attempts and slow answers (beyond the per-answer allowance) do not push an episode past it."""

from __future__ import annotations

import asyncio
import itertools
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.agents.llm import ChatPolicy, LLMTarget
from agentmetrology.records.clock import Clock, FakeClock
from agentmetrology.records.policy import Brief, Move, Stop
from agentmetrology.records.tools import Observation
from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.run.campaign.llm import EpisodeTimeout, within
from agentmetrology.run.campaign.worker import DeadlinePolicy
from agentmetrology.store import EvidenceStore
from run.campaign.campaign_fixtures import query
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI, Reply, Script, http_error

CAMPAIGN = """
[campaign]
name = "deadline"
tasks = ["T3_duplicates"]
seeds = "0"
levels = ["L0", "L2"]
concurrency = 1

[limits]
max_steps = 30
deadline_s = 0.3

[[targets]]
name = "m"
kind = "llm"
model = "fake-model"
base_url = "{base_url}"
max_retries = 1
"""
ALLOWANCE_S = 0.02  # per answer: the test's stand-in for the default 10 s


def factory(target: LLMTarget, clock: Clock) -> ChatPolicy:
    """The LLM policy with test-sized back-off and allowance (the defaults are seconds)."""
    return ChatPolicy(target, clock=clock, backoff_base_s=0.01,
                      provider_allowance_s=ALLOWANCE_S)


def _run(tmp_path: Path, script: Script) -> dict[str, tuple[Any, ...]]:
    """Run L0 and L2 of one seed against `script`; return {level: (termination, status,
    score)} of the ground-truth scorer."""
    with FakeOpenAI(script) as srv:
        config = parse_campaign(CAMPAIGN.format(base_url=srv.base_url))
        with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
            run_campaign(config, st, policy_factory=factory)
    rows = query(tmp_path / "s", "SELECT a.level, e.termination, s.status, s.score FROM "
                                 "episodes e JOIN administrations a ON a.id = e.administration "
                                 "JOIN assessments s ON s.administration = a.id WHERE s.scorer "
                                 "= 'ground_truth_f1'")
    return {r[0]: r[1:4] for r in rows}


def slow(delay_s: float) -> Any:
    """Return the careful model answering after `delay_s` seconds (a slow endpoint)."""

    def model(body: dict[str, Any]) -> Reply:
        return {**careful_model(body), "delay": delay_s}

    return model


def test_a_slow_endpoint_does_not_spend_the_agents_deadline(tmp_path: Path) -> None:
    # Four answers of 0.15 s at L0 and more at L2: well past 0.3 s of wall time, but the agent
    # is charged 0.02 s per answer.
    results = _run(tmp_path, itertools.repeat(slow(0.15), 40))
    assert results == {"L0": ("submitted", "PASS", 1.0), "L2": ("submitted", "PASS", 1.0)}


def test_rate_limit_back_off_does_not_spend_the_agents_deadline(tmp_path: Path) -> None:
    # Every request is first answered 429 with retry-after-ms 150: the policy waits 0.15 s
    # before each answer, the provider's time.
    limited = http_error(429, "slow down", headers={"retry-after-ms": "150"})
    results = _run(tmp_path, [limited, careful_model] * 20)
    assert results == {"L0": ("submitted", "PASS", 1.0), "L2": ("submitted", "PASS", 1.0)}


def test_a_retry_after_longer_than_the_hard_cut_does_not_cut_the_episode(
        tmp_path: Path) -> None:
    # The hard cut (deadline 0.3 s + timeout_s 0.2 s of the agent's time) counted a wait
    # before a retry as the agent's until the wait ended: a 429 asking for 0.7 s cut the
    # episode (a failed attempt, EpisodeTimeout) although the wait is the provider's time.
    limited = http_error(429, "slow down", headers={"retry-after-ms": "700"})
    text = CAMPAIGN.replace('levels = ["L0", "L2"]', 'levels = ["L2"]').replace(
        "max_retries = 1", "max_retries = 1\ntimeout_s = 0.2")
    with FakeOpenAI([limited, *[careful_model] * 20]) as srv, \
            EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
        run_campaign(parse_campaign(text.format(base_url=srv.base_url)), st,
                     policy_factory=factory)
    assert query(tmp_path / "s", "SELECT status, detail FROM attempts") == [("finished", None)]
    assert query(tmp_path / "s", "SELECT termination FROM episodes") == [("submitted",)]


class _Waits:
    """A policy that thinks `think_s` per move on the episode's clock and reports `provider_s`
    of provider time per move."""

    name = "waits"
    levels = ("L2",)

    def __init__(self, think_s: float, provider_s: float) -> None:
        self.think_s, self.per_move, self.provider_s = think_s, provider_s, 0.0
        self.clock: Clock = FakeClock()

    def reset(self, brief: Brief) -> None:
        self.clock = brief.clock

    async def act(self, observation: Observation | None) -> Move:
        await self.clock.sleep(self.think_s + self.per_move)
        self.provider_s += self.per_move
        return Stop("thinking")

    async def decide(self, question: Any) -> Any:
        return question.fallback

    def take_attempts(self) -> list[Any]:
        return []

    def provider_time_s(self) -> float:
        return self.provider_s


def _moves_before_deadline(inner: _Waits, deadline_s: float) -> int:
    policy = DeadlinePolicy(inner, deadline_s)  # type: ignore[arg-type]
    clock = FakeClock()
    policy.reset(Brief("T", "", {}, (), "L2", (), 0, 100, clock))
    moves = 0
    while moves < 100:
        move = asyncio.run(policy.act(None))
        if move == Stop(f"deadline of {deadline_s:g} s reached"):
            return moves
        moves += 1
    return moves


def test_the_deadline_still_counts_the_agents_own_time() -> None:
    # 1 s of the agent's time per move: a 3 s deadline allows 3 moves, whatever the provider
    # added on top (2 s per move here).
    assert _moves_before_deadline(_Waits(1.0, 0.0), 3.0) == 3
    assert _moves_before_deadline(_Waits(1.0, 2.0), 3.0) == 3


class _Provider:
    """A policy whose every second so far was its provider's (or none, with `waiting=False`)."""

    def __init__(self, waiting: bool) -> None:
        self.started, self.waiting = time.monotonic(), waiting

    def provider_time_s(self) -> float:
        return time.monotonic() - self.started if self.waiting else 0.0


def test_the_hard_cut_counts_the_agents_time_too() -> None:
    async def episode() -> str:
        await asyncio.sleep(0.2)
        return "done"

    async def run(waiting: bool) -> Any:
        return await within(episode(), _Provider(waiting), 0.05)  # type: ignore[arg-type]

    assert asyncio.run(run(waiting=True)) == "done"  # 0.2 s of waiting on the provider
    with pytest.raises(EpisodeTimeout, match=r"0\.05 s of the agent's time"):
        asyncio.run(run(waiting=False))


def test_a_request_cut_at_the_hard_deadline_stays_billed_with_an_unknown_cost(
        tmp_path: Path) -> None:
    # A server that sends its headers, then a byte every 50 ms, forever: every read comes
    # within timeout_s, so only the hard cut (deadline + timeout_s) ends the request. It was
    # sent and may be billed: the ledger keeps it, and the campaign's cost is unknown, not 0.
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    stop = threading.Event()

    def serve() -> None:
        conn, _ = srv.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                     b"content-length: 1000000\r\n\r\n")
        while not stop.wait(0.05):
            conn.sendall(b" ")
        conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    text = CAMPAIGN.format(base_url=f"http://127.0.0.1:{srv.getsockname()[1]}/v1")
    text = text.replace('levels = ["L0", "L2"]', 'levels = ["L2"]')
    text = text.replace("max_retries = 1", "max_retries = 1\ntimeout_s = 0.5\n"
                        "price = { input_per_m = 1, output_per_m = 2 }")
    try:
        with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
            result = run_campaign(parse_campaign(text), st, policy_factory=factory)
    finally:
        stop.set()
        srv.close()
    assert query(tmp_path / "s", "SELECT status FROM attempts") == [("failed",)]
    assert query(tmp_path / "s", "SELECT billing_id, outcome, input_tokens, output_tokens, "
                                 "cost FROM billable_attempts") == \
        [("r001.1", "cancelled", None, None, None)]
    total = result.status.total
    assert (total.unrecorded_requests, total.cost_unknown) == (1, 1)
