"""The tokens InspectModelPolicy bills: Inspect's input_tokens leave out cache reads and writes,
ours (`BillableAttempt.input_tokens`, priced by `Prices.cost`) include them."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ModelOutput, ModelUsage

from agentmetrology.inspect_ext.policy import InspectModelPolicy
from agentmetrology.records.drive import drive
from agentmetrology.records.policy import Question


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
