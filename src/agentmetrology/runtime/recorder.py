"""Records every call and decision of an episode as an Event with its actor."""

from __future__ import annotations

from typing import Any, Protocol

from agentmetrology.records.canonical import CanonicalError, to_plain
from agentmetrology.records.clock import Clock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.events import (
    ARGUMENTS_SENT,
    ARGUMENTS_SENT_REPR,
    SURROGATE_REFUSAL,
    Actor,
    Event,
    EventKind,
    RefusedArguments,
)
from agentmetrology.records.tools import Observation, Tool


class TracedEnv(Protocol):
    """What a runner needs from an environment beyond its tools."""

    tools: dict[str, Tool]

    @property
    def trace(self) -> list[Any]:
        """Return the adversarial trace so far (entries with `as_dict()`)."""
        ...


def _escaped_surrogates(value: Any) -> Any:
    """Return `value` with every lone surrogate in its strings (keys too) written as its
    backslash escape (U+D800 as the six characters \\ud800); None when it holds none (the
    usual case: nothing is copied)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return None
    if isinstance(value, dict):
        pairs = [(_escaped_surrogates(k), _escaped_surrogates(v)) for k, v in value.items()]
        if all(k is None and v is None for k, v in pairs):
            return None
        return {(k if ek is None else ek): (v if ev is None else ev)
                for (k, v), (ek, ev) in zip(value.items(), pairs, strict=True)}
    if isinstance(value, list | tuple):
        items = [_escaped_surrogates(v) for v in value]
        if all(v is None for v in items):
            return None
        return [v if e is None else e for v, e in zip(value, items, strict=True)]
    return None


_SCALARS = frozenset({int, float, bool, type(None)})


def _surely_unicode(args: dict[Any, Any]) -> bool:
    """Return True when `args` certainly holds no lone surrogate: ASCII str keys, and values
    that are ASCII strs or scalars (every tool call of every episode is tested; the walk
    above costs five times this, and only text that is not ASCII can hold a surrogate)."""
    for k, v in args.items():
        if type(k) is not str or not k.isascii():
            return False
        t = type(v)
        if t is str:
            if not v.isascii():
                return False
        elif t not in _SCALARS:
            return False
    return True


# Lists and objects nested deeper than this are refused: no tool's arguments nest more than
# a few levels, and a record must stay writable (canonical JSON, the store and every reader
# walk it recursively, two stack frames a level; JSON an LLM sends nests up to ~1,000 levels
# before a parser refuses). Calls up to this depth were always recorded and stored as sent:
# they are executed as before, so their replays stay the same.
MAX_ARGUMENT_DEPTH = 200
DEPTH_ERROR = (f"the arguments nest lists and objects more than {MAX_ARGUMENT_DEPTH} levels "
               "deep; the call was not executed: send flatter arguments")
_SHOWN_NAME = 200  # characters of an unknown tool's name an error repeats


def _deeper_than(value: Any, limit: int) -> bool:
    """Return True when `value` nests lists, tuples and dicts more than `limit` levels
    (walked without recursion, so any depth is measured)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        inner = item.values() if isinstance(item, dict) else item
        stack.extend((v, depth + 1) for v in inner if isinstance(v, dict | list | tuple))
    return False


class _Mark(str):
    """A piece of punctuation `_repr_of` writes as it is (never a value to repr)."""


def _repr_of(value: Any) -> str:
    """Return repr(value) for lists, tuples and dicts of any depth, written without
    recursion (repr itself stops near 1,000 levels, fewer deep in a caller's stack)."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is _Mark:
            out.append(item)
        elif kind is dict:
            parts: list[Any] = [_Mark("{")]
            for i, (k, v) in enumerate(item.items()):
                parts += [_Mark(", ")] * bool(i) + [k, _Mark(": "), v]
            stack.extend(reversed([*parts, _Mark("}")]))
        elif kind is list or kind is tuple:
            opening, closing = ("[", "]") if kind is list else ("(", ",)" if len(item) == 1
                                                                else ")")
            parts = [_Mark(opening)]
            for i, v in enumerate(item):
                parts += [_Mark(", ")] * bool(i) + [v]
            stack.extend(reversed([*parts, _Mark(closing)]))
        else:
            out.append(repr(item))
    return "".join(out)


def _kept_repr(value: Any) -> dict[str, str]:
    """Return the repr of `value` (surrogates escaped) under ARGUMENTS_SENT_REPR."""
    text = _repr_of(value)
    return {ARGUMENTS_SENT_REPR: _escaped_surrogates(text) or text}


def kept_arguments(value: Any) -> dict[str, Any]:
    """Return what the refusal of arguments that are not a JSON object keeps of them: the
    value (lone surrogates escaped) under ARGUMENTS_SENT, or the repr of a value that has no
    JSON form or nests deeper than MAX_ARGUMENT_DEPTH under ARGUMENTS_SENT_REPR
    (records.events says why)."""
    if isinstance(value, dict | list | tuple) and _deeper_than(value, MAX_ARGUMENT_DEPTH):
        return _kept_repr(value)
    try:
        escaped = _escaped_surrogates(value)
        kept = value if escaped is None else escaped
        to_plain(kept, tag_non_finite=True)  # what writing the record will do
    except (CanonicalError, RecursionError):
        return _kept_repr(value)
    return {ARGUMENTS_SENT: kept}


def screened_arguments(args: Any) -> tuple[dict[str, Any], dict[str, Any], str]:
    """Return (the args an event records, the fields its result adds, why the call must be
    refused or ''): a JSON object as it is; one holding a lone surrogate with each escaped;
    one nested deeper than MAX_ARGUMENT_DEPTH, or any other value, as {} with what was sent
    kept (`kept_arguments`); a replayed refusal (`RefusedArguments`) as it was recorded."""
    if type(args) is RefusedArguments:  # refused again exactly as the original was
        return dict(args), dict(args.kept), args.reason or "the recorded call was refused"
    if not isinstance(args, dict):
        return {}, kept_arguments(args), "arguments must be a JSON object"
    if _surely_unicode(args):
        return args, {}, ""
    if _deeper_than(args, MAX_ARGUMENT_DEPTH):
        return {}, _kept_repr(args), DEPTH_ERROR
    if not all(type(k) is str for k in args):  # only an in-process caller can send these
        return {}, _kept_repr(args), "argument names must be text"
    escaped = _escaped_surrogates(args)
    if escaped is not None:
        # No record can hold a lone surrogate (canonical JSON is UTF-8): recorded with each
        # one written as its escape, so nothing is lost.
        return escaped, {}, SURROGATE_REFUSAL
    return args, {}, ""


def recorded_arguments(args: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return (the args an event records, the fields its result adds), as `screened_arguments`
    gives them (for a call that is not executed either way, e.g. an intercepted one)."""
    recorded, kept, _ = screened_arguments(args)
    return recorded, kept


def recorded_name(name: Any) -> str:
    """Return the tool name an event records: a text name with any lone surrogate escaped,
    or the repr of a name that is not text."""
    if type(name) is not str:
        return next(iter(_kept_repr(name).values()))
    return name if name.isascii() else (_escaped_surrogates(name) or name)


def _shown(name: str) -> str:
    """Return the repr of a tool name as an error repeats it: its start when it is long."""
    if len(name) <= _SHOWN_NAME:
        return repr(name)
    return f"{name[:_SHOWN_NAME]!r}... ({len(name)} characters)"


class Recorder:
    """Executes tool calls on behalf of an actor and keeps the event list."""

    def __init__(self, env: TracedEnv, clock: Clock) -> None:
        self.env = env
        self.clock = clock
        self.events: list[Event] = []
        self.tool_calls = 0
        self.attempts: list[BillableAttempt] = []
        self._trace_seen = 0

    def add(self, actor: Actor, kind: EventKind, name: str, args: dict[str, Any],
            result: Any) -> Event:
        """Append one event stamped with the clock."""
        ev = Event(len(self.events), actor, kind, name, args, result, self.clock.now())
        self.events.append(ev)
        return ev

    def call(self, actor: Actor, name: str, args: dict[str, Any]) -> Observation:
        """Execute a tool as `actor`; unknown tools and bad arguments give error observations.

        Whatever was sent is recorded in a form every record can hold: a lone surrogate in
        the name or the arguments as its escape, arguments that are not an object or nest
        deeper than MAX_ARGUMENT_DEPTH kept beside the refusal (`screened_arguments`).
        """
        self.tool_calls += 1
        env = self.env
        # Under a mutation the agent sees renamed tools; the harness keeps the originals.
        tools = getattr(env, "harness_tools", env.tools) if actor == "harness" else env.tools
        if type(name) is not str or not name.isascii():
            name = recorded_name(name)
        tool = tools.get(name)
        # An object of ASCII keys and scalar or ASCII values (every usual call) is recorded as
        # it is; anything else is screened first.
        kept: dict[str, Any] = {}
        refused = ""
        if type(args) is not dict or not _surely_unicode(args):
            args, kept, refused = screened_arguments(args)
        if tool is None:
            result: Observation = {"error": f"unknown tool {_shown(name)}; available: "
                                            f"{', '.join(tools)}"}
        elif refused:
            result = {"error": f"{name}: {refused}"}
        else:
            # Tool.__call__ only forwards to fn: calling fn skips one keyword repacking (every
            # tool call of every episode comes through here).
            result = tool.fn(**args) if type(tool) is Tool else tool(**args)
        if kept:
            # The call was refused; the event's args stay an object, and what was sent is
            # kept beside the refusal, so the record never says the call had no arguments.
            result = {**result, **kept}
        self.add(actor, "tool_call", name, args, result)
        if len(env.trace) > self._trace_seen:
            self._sync_trace()
        return result

    def _sync_trace(self) -> None:
        # Adversary intents are realised inside the call; record them right after it.
        trace = self.env.trace
        while self._trace_seen < len(trace):
            item = trace[self._trace_seen]
            self._trace_seen += 1
            if getattr(item, "perturbations", True) == () \
                    and not getattr(item, "not_realised", ()):
                continue  # nothing was perturbed or meant: no event (skips building the dict)
            entry = item.as_dict()
            if entry["perturbations"] or entry.get("not_realised"):
                self.add("adversary", "perturbation", "intents", {}, entry)
