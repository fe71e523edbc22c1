"""Token counts an endpoint reports: kept as reported, and a count that cannot be billed makes
the attempt's cost unknown (never negative, never a crash), with the reason."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentmetrology.agents.llm import ChatPolicy, LLMTarget, Prices
from agentmetrology.agents.llm.usage import MAX_TOKENS, checked_usage
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.records import Episode, canonical_json
from agentmetrology.records.canonical import decode_json
from agentmetrology.records.clock import FakeClock
from support.comtrade_runs import COMTRADE
from support.fake_models import reporting
from support.fake_openai import FakeOpenAI

# Every test here runs on both HTTP paths (lean and sdk): same behaviour, asserted on both.
pytestmark = pytest.mark.usefixtures("both_http_clients")

PRICED = Prices(input_per_m=1.0, output_per_m=2.0, cached_per_m=0.5)


def _episode(use: dict[str, Any]) -> Episode:
    async def go() -> Episode:
        with FakeOpenAI([reporting(use)] * 40) as srv:
            target = LLMTarget("llm:m", "m", srv.base_url, None, {}, PRICED, 0, 5.0)
            policy = ChatPolicy(target, clock=FakeClock())
            ep = await run_episode_async(COMTRADE, ComtradeEnv("T1_single_page", 0), policy,
                                         "L2")
            await policy.aclose()
        return ep

    return asyncio.run(go())


def test_cached_tokens_above_prompt_tokens_make_the_cost_unknown_not_negative() -> None:
    ep = _episode({"prompt_tokens": 1000, "completion_tokens": 50,
                   "prompt_tokens_details": {"cached_tokens": 5000}})
    assert ep.termination.kind == "submitted" and ep.usage.attempts
    for a in ep.usage.attempts:
        assert (a.input_tokens, a.output_tokens, a.cached_tokens, a.cost) == (1000, 50, None,
                                                                              None)
    assert ep.usage.cost is None
    notes = ep.meta["policy_notes"]
    assert notes["usage_problems"][0] == {
        "attempt_id": "r001.1",
        "reported": {"prompt_tokens": "1000", "completion_tokens": "50",
                     "cached_tokens": "5000"},
        "reason": "cached_tokens 5000 exceeds prompt_tokens 1000"}
    assert len(notes["usage_problems"]) == len(ep.usage.attempts)
    assert any("cost is unknown" in w and "cached_tokens 5000 exceeds prompt_tokens 1000" in w
               for w in notes["warnings"])


def test_negative_and_huge_counts_are_kept_as_reported_and_never_billed() -> None:
    huge = 10 ** 30
    ep = _episode({"prompt_tokens": huge, "completion_tokens": -7})
    a = ep.usage.attempts[0]
    assert (a.input_tokens, a.output_tokens, a.cached_tokens, a.cost) == (None, None, None, None)
    reported = ep.meta["policy_notes"]["usage_problems"][0]
    assert reported["reported"] == {"prompt_tokens": str(huge), "completion_tokens": "-7"}
    assert reported["reason"] == (f"prompt_tokens {huge} is outside 0..{MAX_TOKENS}; "
                                  f"completion_tokens -7 is outside 0..{MAX_TOKENS}")
    # The record round-trips through canonical JSON: the reported values are text.
    assert decode_json(canonical_json(ep))["meta"]["policy_notes"]["usage_problems"][0] == \
        reported


def test_counts_of_the_wrong_type_are_unknown_and_the_completion_is_used() -> None:
    # A usable completion whose counts are no integers: the counts are unknown, the answer is
    # used (never an unusable response retried and paid again), on both HTTP paths alike.
    ep = _episode({"prompt_tokens": 100.5, "completion_tokens": True})
    assert ep.termination.kind == "submitted"
    assert [a.outcome for a in ep.usage.attempts] == ["ok"] * len(ep.usage.attempts)
    a = ep.usage.attempts[0]
    assert (a.input_tokens, a.output_tokens, a.cached_tokens, a.cost) == (None, None, None, None)
    assert ep.meta["policy_notes"]["usage_problems"][0] == {
        "attempt_id": "r001.1",
        "reported": {"prompt_tokens": "100.5", "completion_tokens": "True"},
        "reason": "prompt_tokens 100.5 is not an integer; completion_tokens True is not an "
                  "integer"}


def test_counts_are_checked_one_by_one() -> None:
    assert checked_usage(1000, 50, 400) == ((1000, 50, 400), None)
    assert checked_usage(None, None, None) == ((None, None, None), None)
    assert checked_usage(MAX_TOKENS, 0, MAX_TOKENS) == ((MAX_TOKENS, 0, MAX_TOKENS), None)
    assert checked_usage(MAX_TOKENS + 1, 0, None)[0] == (None, 0, None)
    assert checked_usage(10, True, None) == (
        (10, None, None), "completion_tokens True is not an integer")
    assert checked_usage("12", 1.5, None) == (
        (None, None, None),
        "prompt_tokens '12' is not an integer; completion_tokens 1.5 is not an integer")
    assert checked_usage(10, 1, -1)[1] == f"cached_tokens -1 is outside 0..{MAX_TOKENS}"


def test_a_price_never_makes_a_negative_cost() -> None:
    assert PRICED.cost(1000, 50, 5000) is None
    assert PRICED.cost(-1, 50, None) is None
    assert PRICED.cost(1000, 50, 400) == pytest.approx((600 + 200 + 100) / 1e6)
