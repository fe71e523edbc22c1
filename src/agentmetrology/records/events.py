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


# Why the recorder refuses arguments holding a lone surrogate (recorded with it escaped).
SURROGATE_REFUSAL = ("the arguments hold a lone surrogate (a \\ud800-style code point, written "
                     "here as its escape), which is not Unicode text; the call was not "
                     "executed: send the text as UTF-8")


def sent_arguments(args: Any, result: Any) -> Any:
    """Return what a recorded call was sent: the value its refusal kept under ARGUMENTS_SENT
    when its arguments were not a JSON object, else its args."""
    if not args and type(result) is dict and ARGUMENTS_SENT in result \
            and not isinstance(result[ARGUMENTS_SENT], dict):
        return result[ARGUMENTS_SENT]
    return args


class RefusedArguments(dict[str, Any]):
    """A call the recorder refused, sent again as that refusal: the args its event recorded,
    the fields its result kept of what was sent, and why it was refused.

    What such a call was sent cannot be sent again as it was: a value kept only as its repr
    (no JSON form, or nested too deep) or text whose lone surrogates the record holds escaped,
    which the tool would now accept. A replay sending that would run a call the original did
    not, and score another episode; the recorder records this refusal again instead
    (runtime.recorder.screened_arguments)."""

    def __init__(self, args: dict[str, Any], kept: dict[str, Any], reason: str) -> None:
        super().__init__(args)
        self.kept = kept
        self.reason = reason


def replayed_arguments(name: str, args: dict[str, Any], result: Any) -> Any:
    """Return what a replay sends for a recorded call: what it was sent (`sent_arguments`), or
    the recorder's refusal of it (`RefusedArguments`) when that cannot be sent again."""
    if type(result) is dict:
        if ARGUMENTS_SENT_REPR in result:
            error = result.get("error")
            prefix = f"{name}: "
            reason = error[len(prefix):] if isinstance(error, str) and \
                error.startswith(prefix) else ""
            return RefusedArguments(args, {ARGUMENTS_SENT_REPR: result[ARGUMENTS_SENT_REPR]},
                                    reason)
        if result == {"error": f"{name}: {SURROGATE_REFUSAL}"}:
            return RefusedArguments(args, {}, SURROGATE_REFUSAL)
    return sent_arguments(args, result)
