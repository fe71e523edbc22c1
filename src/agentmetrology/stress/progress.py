"""A snapshot of an agent's progress, the input that drives adversity."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AgentProgress:
    """Successful steps, failed steps, the step index and the budget left (None if unbounded)."""

    successes: int
    failures: int
    step: int
    budget_left: int | None = None
