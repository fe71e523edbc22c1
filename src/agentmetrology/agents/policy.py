"""The policy interface every agent implements: one step at a time, async, usage reported.

A policy sees observations and proposes moves; the scaffold decides which of its moves reach the
environment (specs/comtrade.md, "Scaffold levels"). Model-free policies never await anything, so
the scaffold can drive them without an event loop; an LLM policy awaits its provider.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from agentmetrology.agents.clock import Clock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.tools import Observation, ToolSpec

Decision = Literal["RETRY", "SKIP"]
Level = Literal["L0", "L1", "L2"]


@dataclass(frozen=True, slots=True)
class Brief:
    """What a policy is told at the start of an episode."""

    task_id: str
    description: str
    query: dict[str, Any]
    tools: tuple[ToolSpec, ...]
    level: Level
    owned: tuple[str, ...]  # the decisions this level gives the policy
    seed: int | None
    max_steps: int
    clock: Clock


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A proposed tool call."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    call_id: str | None = None


@dataclass(frozen=True, slots=True)
class Stop:
    """The policy ends its turn without another tool call (optionally with final text)."""

    text: str = ""


Move = ToolCall | Stop


@dataclass(frozen=True, slots=True)
class FaultNotice:
    """What an L1 policy sees when a fetch fails: the fault and the budget arithmetic."""

    page: int
    status: int | None
    error: str
    attempt: int
    requests_used: int
    requests_remaining: int
    total_pages: int | None
    pages_done: int


class Policy(Protocol):
    """An agent: proposes tool calls (L0/L2) or RETRY/SKIP decisions (L1), one step at a time."""

    name: str
    levels: tuple[Level, ...]  # the scaffold levels this policy can act at

    def reset(self, brief: Brief) -> None:
        """Prepare for a new episode."""
        ...

    async def act(self, observation: Observation | None) -> Move:
        """Return the next move given the result of the previous call (None at the start)."""
        ...

    async def decide(self, notice: FaultNotice) -> Decision:
        """Return RETRY or SKIP for a failed fetch (asked only at L1)."""
        ...

    def take_attempts(self) -> list[BillableAttempt]:
        """Return and forget the billable model attempts made since the last call."""
        ...
