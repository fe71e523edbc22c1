"""Events: one thing that happened in an episode, with its actor attached at creation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

Actor = Literal["agent", "harness", "environment", "grader", "user", "adversary"]
ACTORS: tuple[str, ...] = get_args(Actor)

EventKind = Literal[
    "tool_call",  # a tool invocation and its result
    "decision",  # a RETRY/SKIP (or similar) decision and who made it
    "intercepted",  # a call the scaffold did not pass through (e.g. a model's own submit at L0)
    "perturbation",  # an adversary intent realised in the environment
    "message",  # free text (e.g. a model's final answer without a tool call)
    "note",  # harness bookkeeping worth keeping in the record
]


@dataclass(slots=True)
class Event:
    """One event: sequence number, actor, kind, name, arguments, result and clock time."""

    seq: int
    actor: Actor
    kind: EventKind
    name: str
    args: dict[str, Any]
    result: Any
    t: float
