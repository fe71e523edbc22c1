"""The policy interface every agent implements: one step at a time, async, usage reported.

A policy sees observations and proposes moves; the scaffold decides which of its moves reach the
environment (docs/comtrade.md, "Scaffold levels"). Model-free policies never await anything, so
the scaffold can drive them without an event loop; an LLM policy awaits its provider. It lives in
`records` because environment plug-ins ship model-free policies and must not import `agents`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from agentmetrology.records.clock import Clock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.tools import Observation, ToolSpec

Level = Literal["L0", "L1", "L2"]
LEVELS: tuple[Level, ...] = ("L0", "L1", "L2")
Decision = str  # one of a Question's options


@dataclass(frozen=True, slots=True)
class Brief:
    """What a policy is told at the start of an episode."""

    task_id: str
    description: str
    query: dict[str, Any]  # the task's parameters as the environment states them
    tools: tuple[ToolSpec, ...]
    level: Level
    owned: tuple[str, ...]  # the decisions this level gives the policy
    seed: int | None
    max_steps: int
    clock: Clock
    environment: str = ""
    system_prompt: str = ""  # what an LLM policy is told (from the environment's prompts)
    task_message: str = ""
    prompt_version: str = ""


# Not frozen: a policy makes one per move, and a frozen slotted dataclass costs three times as
# much to make (each field set through object.__setattr__); nothing keeps or hashes one.
@dataclass(slots=True)
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
class Question:
    """A decision the harness puts to the model at a half-scaffold level (e.g. RETRY or SKIP).

    `facts` are what the environment says about the situation (recorded with the answer);
    `text` is the question as a model reads it; an answer outside `options` counts as
    `fallback`.
    """

    decision: str
    options: tuple[str, ...]
    fallback: str
    text: str
    facts: Mapping[str, Any] = field(default_factory=dict)

    def answer(self, value: object) -> str:
        """Return `value` if it is one of the options, else the fallback."""
        return value if isinstance(value, str) and value in self.options else self.fallback


class Policy(Protocol):
    """An agent: proposes tool calls (L0/L2) or answers questions (L1), one step at a time."""

    name: str
    levels: tuple[Level, ...]  # the scaffold levels this policy can act at

    def reset(self, brief: Brief) -> None:
        """Prepare for a new episode."""
        ...

    async def act(self, observation: Observation | None) -> Move:
        """Return the next move given the result of the previous call (None at the start)."""
        ...

    async def decide(self, question: Question) -> Decision:
        """Return one of the question's options (asked only at half-scaffold levels)."""
        ...

    def take_attempts(self) -> list[BillableAttempt]:
        """Return and forget the billable model attempts made since the last call."""
        ...


def sync_act(policy: Policy) -> Callable[[Observation | None], Move] | None:
    """Return the policy's `act` as a plain function if it offers one for this episode, else
    None (then `act` is awaited and `take_attempts` read after each move).

    A policy offers one (`sync_act()`, after `reset`) only when its moves never await and it
    makes no model calls, e.g. a scripted policy on a fake clock: a runner then saves a
    coroutine and an attempts read per move. The offer is looked up on the policy's class: a
    wrapper that forwards unknown attributes to its inner policy (a campaign's deadline) must
    not hand out the inner act, which would skip its own.
    """
    offer = getattr(type(policy), "sync_act", None)
    return offer(policy) if offer is not None else None
