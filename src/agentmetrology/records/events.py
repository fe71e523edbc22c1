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


# A call whose arguments are not a JSON object (a list, a string, a number, null) is refused.
# Its event keeps `args` an object ({}), as every reader of an event expects, and its result
# (the refusal) keeps what was sent under ARGUMENTS_SENT, so the record never says the call had
# no arguments; a Python value with no JSON form (a set, say, from an in-process policy) is
# kept as its repr under ARGUMENTS_SENT_REPR.
ARGUMENTS_SENT = "arguments_sent"
ARGUMENTS_SENT_REPR = "arguments_sent_repr"


def sent_arguments(args: Any, result: Any) -> Any:
    """Return what a recorded call was sent: the value its refusal kept under ARGUMENTS_SENT
    when its arguments were not a JSON object, else its args."""
    if not args and type(result) is dict and ARGUMENTS_SENT in result \
            and not isinstance(result[ARGUMENTS_SENT], dict):
        return result[ARGUMENTS_SENT]
    return args
