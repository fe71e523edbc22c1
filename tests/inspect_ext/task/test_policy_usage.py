"""The tokens InspectModelPolicy bills: Inspect's input_tokens leave out cache reads and writes,
ours (`BillableAttempt.input_tokens`, priced by `Prices.cost`) include them; a count or cost no
bill can have is unknown, with what Inspect reported kept in the notes."""

from __future__ import annotations

import math
from typing import Any

import pytest
from inspect_ai.model import ModelOutput, ModelUsage

from agentmetrology.agents.llm.usage import MAX_TOKENS
from agentmetrology.inspect_ext.task.policy import InspectModelPolicy
from agentmetrology.records import canonical_json
from agentmetrology.records.canonical import decode_json
from agentmetrology.records.policy import Question
from agentmetrology.runtime.drive import drive


class _Model:
    """A stand-in for an Inspect Model whose one reply reports `usage`."""

    def __init__(self, usage: ModelUsage | None) -> None:
        self.usage = usage

    def __str__(self) -> str:
        return "openai/m"

    async def generate(self, messages: Any, tools: Any) -> ModelOutput:
        out = ModelOutput.from_content("m", "RETRY")
        out.usage = self.usage
        return out


QUESTION = Question("retry", ("RETRY", "SKIP"), "SKIP", "RETRY or SKIP?")


def _attempt(usage: ModelUsage | None) -> Any:
    policy = InspectModelPolicy(_Model(usage))  # type: ignore[arg-type]
    assert drive(policy.decide(QUESTION)) == "RETRY"
    (attempt,) = policy.take_attempts()
    return attempt


def test_input_tokens_include_what_inspect_counts_apart_as_cache_reads_and_writes() -> None:
    # As OpenAI reports it: 1100 prompt tokens, 400 of them read from the cache, 100 written.
    attempt = _attempt(ModelUsage(input_tokens=600, output_tokens=50, total_tokens=1150,
                                  input_tokens_cache_read=400, input_tokens_cache_write=100))
    assert (attempt.input_tokens, attempt.cached_tokens, attempt.output_tokens) == (1100, 400, 50)


def test_input_tokens_without_cache_fields_are_inspects() -> None:
    attempt = _attempt(ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12))
    assert (attempt.input_tokens, attempt.cached_tokens, attempt.output_tokens) == (10, None, 2)


def test_no_usage_is_unknown_tokens_not_zero() -> None:
    attempt = _attempt(None)
    assert (attempt.input_tokens, attempt.cached_tokens, attempt.output_tokens) == (None,) * 3


def _checked(**fields: Any) -> tuple[Any, dict[str, Any]]:
    """Return the attempt of one reply reporting `fields` and the policy's notes."""
    usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
    for name, value in fields.items():
        setattr(usage, name, value)  # Inspect does not validate assignments: any value arrives
    policy = InspectModelPolicy(_Model(usage))  # type: ignore[arg-type]
    assert drive(policy.decide(QUESTION)) == "RETRY"
    (attempt,) = policy.take_attempts()
    return attempt, policy.notes()


def test_a_huge_count_is_kept_as_reported_and_never_billed() -> None:
    huge = 10 ** 30
    attempt, notes = _checked(input_tokens=huge, total_cost=0.5)
    assert (attempt.input_tokens, attempt.output_tokens, attempt.cost) == (None, 2, None)
    assert notes["usage_problems"] == [{
        "attempt_id": "inspect-1",
        "reported": {"input_tokens": str(huge), "output_tokens": "2", "total_cost": "0.5"},
        "reason": f"input_tokens {huge} is outside 0..{MAX_TOKENS}"}]
    # The record round-trips through canonical JSON: the reported values are text.
    assert decode_json(canonical_json(notes)) == notes


def test_negative_and_non_integer_counts_make_the_cost_unknown() -> None:
    attempt, notes = _checked(output_tokens=-7, input_tokens_cache_read=1.5)
    assert (attempt.input_tokens, attempt.output_tokens, attempt.cached_tokens,
            attempt.cost) == (None, None, None, None)
    assert notes["usage_problems"][0]["reason"] == (
        "input_tokens_cache_read 1.5 is not an integer; "
        f"output_tokens -7 is outside 0..{MAX_TOKENS}")


def test_parts_within_bounds_whose_sum_is_not_leave_the_input_unknown() -> None:
    attempt, notes = _checked(input_tokens=MAX_TOKENS, input_tokens_cache_read=MAX_TOKENS)
    assert (attempt.input_tokens, attempt.cached_tokens, attempt.output_tokens) == (
        None, MAX_TOKENS, 2)
    assert notes["usage_problems"][0]["reason"] == (
        "input_tokens + input_tokens_cache_read + input_tokens_cache_write = "
        f"{2 * MAX_TOKENS} is outside 0..{MAX_TOKENS}")


@pytest.mark.parametrize("cost", [-0.01, math.nan, math.inf, True])
def test_a_cost_that_no_bill_can_have_is_unknown(cost: Any) -> None:
    attempt, notes = _checked(total_cost=cost)
    assert (attempt.input_tokens, attempt.output_tokens, attempt.cost) == (10, 2, None)
    assert notes["usage_problems"][0]["reason"] == \
        f"total_cost {cost!r} is not a finite number >= 0"


def test_counts_that_can_be_billed_leave_no_usage_problems() -> None:
    attempt, notes = _checked(total_cost=0.25)
    assert (attempt.input_tokens, attempt.output_tokens, attempt.cost) == (10, 2, 0.25)
    assert "usage_problems" not in notes
