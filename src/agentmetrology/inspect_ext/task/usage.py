"""The tokens and cost of one Inspect generate call, checked as the LLM agent checks a provider's.

Inspect's `input_tokens` leave out the cache's reads and writes; ours include them (the cached
ones are a part of the input, priced apart by `Prices.cost`), so our input is the sum of the
three. Every count Inspect reports must be an integer in 0..MAX_TOKENS (`agents/llm/usage.py`),
and so must that sum; its cost, a finite number >= 0. A count that breaks a rule is unknown
(None) in the attempt, the attempt's cost is unknown, and what Inspect reported is kept as text
with the reason: never a negative cost, never an integer the ledger cannot hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import ModelUsage

from agentmetrology.agents.llm.usage import MAX_TOKENS, count_problem, reported_text

_PARTS = ("input_tokens", "input_tokens_cache_read", "input_tokens_cache_write")
_NAMES = (*_PARTS, "output_tokens", "total_cost")


@dataclass(frozen=True, slots=True)
class CheckedUsage:
    """The billable counts and cost of one generate call, and why any is unknown."""

    input_tokens: int | None
    output_tokens: int | None
    cached_tokens: int | None
    cost: float | None
    # {"reported": Inspect's values as text, "reason": ...} when a value cannot be billed.
    problem: dict[str, Any] | None = None


def _cost_problem(cost: Any) -> str | None:
    if cost is None:
        return None
    if type(cost) not in (int, float) or not math.isfinite(cost) or cost < 0:
        return f"total_cost {cost!r} is not a finite number >= 0"
    return None


def _input_tokens(counts: dict[str, Any], broken: set[str]) -> tuple[int | None, str | None]:
    """Return the input tokens, cache reads and writes included, or None and why."""
    if broken.intersection(_PARTS):
        return None, None  # the broken part is already named
    total = sum(counts[n] or 0 for n in _PARTS)
    if total > MAX_TOKENS:
        return None, f"{' + '.join(_PARTS)} = {total} is outside 0..{MAX_TOKENS}"
    return total, None


def checked_usage(usage: ModelUsage | None) -> CheckedUsage:
    """Return the attempt's token counts and cost from Inspect's usage, each checked."""
    if usage is None:
        return CheckedUsage(None, None, None, None)
    counts = {n: getattr(usage, n) for n in (*_PARTS, "output_tokens")}
    problems = {n: p for n, v in counts.items() if (p := count_problem(n, v)) is not None}
    input_tokens, why = _input_tokens(counts, set(problems))
    reasons = [*problems.values(), *(r for r in (why, _cost_problem(usage.total_cost)) if r)]
    output = None if "output_tokens" in problems else counts["output_tokens"]
    cached = None if _PARTS[1] in problems else counts[_PARTS[1]]
    if not reasons:
        return CheckedUsage(input_tokens, output, cached, usage.total_cost)
    reported = [*counts.values(), usage.total_cost]
    return CheckedUsage(input_tokens, output, cached, None,
                        {"reported": reported_text(reported, _NAMES), "reason": "; ".join(reasons)})
