"""What one provider request used: its token counts (checked), and whose time it took.

Token counts come from the provider and are not trusted blindly: each must be an integer in
0..MAX_TOKENS, and the cached input tokens no more than the input tokens. A count that breaks a
rule is kept in the episode's notes exactly as reported (as text, so any integer round-trips),
is unknown (None) in the billable attempt, and makes the attempt's cost unknown with the
reason: never a negative cost, never an integer the ledger cannot hold.

Time: a request's latency up to PROVIDER_ALLOWANCE_S is the model's (the agent's); the rest of
a slow answer, a failed attempt and a wait before a retry are the provider's, and the campaign
deadline does not count them (docs/llm.md, "Time").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# Far beyond any context window, far below SQLite's 64-bit INTEGER even summed over a campaign.
MAX_TOKENS = 1_000_000_000
# Latency of an answered request charged to the agent's deadline; the rest is the provider's.
PROVIDER_ALLOWANCE_S = 10.0
_NAMES = ("prompt_tokens", "completion_tokens", "cached_tokens")

Reported = tuple[Any, Any, Any]  # prompt, completion, cached tokens as the provider sent them
Counts = tuple[int | None, int | None, int | None]


def reported_usage(completion: Any) -> Reported:
    """Return the (prompt, completion, cached) token counts a completion reports, unchecked."""
    u = completion.usage
    if u is None:
        return None, None, None
    details = getattr(u, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    return getattr(u, "prompt_tokens", None), getattr(u, "completion_tokens", None), cached


def count_problem(name: str, value: Any) -> str | None:
    """Return why a reported count cannot be billed (not an integer in 0..MAX_TOKENS), or None."""
    if value is None:
        return None
    if type(value) is not int:  # bool is an int subclass, and no count
        return f"{name} {value!r} is not an integer"
    if not 0 <= value <= MAX_TOKENS:
        return f"{name} {value} is outside 0..{MAX_TOKENS}"
    return None


def checked_usage(prompt: Any, completion: Any, cached: Any) -> tuple[Counts, str | None]:
    """Return the usable counts (None for a broken one) and why any count is unusable."""
    values = [prompt, completion, cached]
    problems = []
    for i, name in enumerate(_NAMES):
        problem = count_problem(name, values[i])
        if problem is not None:
            problems.append(problem)
            values[i] = None
    if values[0] is not None and values[2] is not None and values[2] > values[0]:
        problems.append(f"cached_tokens {values[2]} exceeds prompt_tokens {values[0]}")
        values[2] = None
    counts: Counts = (values[0], values[1], values[2])
    return counts, "; ".join(problems) or None


def reported_text(reported: Sequence[Any], names: Sequence[str] = _NAMES) -> dict[str, str]:
    """Return the reported counts under their names as text (integers of any size round-trip),
    absent ones left out."""
    return {name: str(v) if type(v) is int else repr(v)
            for name, v in zip(names, reported, strict=True) if v is not None}


def provider_share(outcome: str, latency_s: float, allowance_s: float) -> float:
    """Return the part of an attempt's latency that is the provider's time, not the agent's."""
    if outcome != "ok":
        return latency_s  # no answer the model gave: all of it was the provider's
    return max(0.0, latency_s - allowance_s)
