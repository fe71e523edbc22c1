"""Records every call and decision of an episode as an Event with its actor."""

from __future__ import annotations

from typing import Any, Protocol

from agentmetrology.records.canonical import CanonicalError, to_plain
from agentmetrology.records.clock import Clock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.events import (
    ARGUMENTS_SENT,
    ARGUMENTS_SENT_REPR,
    Actor,
    Event,
    EventKind,
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


def kept_arguments(value: Any) -> dict[str, Any]:
    """Return what the refusal of arguments that are not a JSON object keeps of them: the
    value (lone surrogates escaped) under ARGUMENTS_SENT, or the repr of a value that has no
    JSON form under ARGUMENTS_SENT_REPR (records.events says why)."""
    try:
        escaped = _escaped_surrogates(value)
        kept = value if escaped is None else escaped
        to_plain(kept, tag_non_finite=True)  # what writing the record will do
    except (CanonicalError, RecursionError):
        try:
            text = repr(value)
        except RecursionError:  # nested deeper than even repr follows
            text = f"<{type(value).__name__} nested too deeply to be recorded>"
        return {ARGUMENTS_SENT_REPR: _escaped_surrogates(text) or text}
    return {ARGUMENTS_SENT: kept}


def recorded_arguments(args: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return (the args an event records, the fields its result adds): a JSON object as it
    is with nothing added; any other value as {}, with the value kept (`kept_arguments`)."""
    if isinstance(args, dict):
        return args, {}
    return {}, kept_arguments(args)


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
        """Execute a tool as `actor`; unknown tools and bad arguments give error observations."""
        self.tool_calls += 1
        env = self.env
        # Under a mutation the agent sees renamed tools; the harness keeps the originals.
        tools = getattr(env, "harness_tools", env.tools) if actor == "harness" else env.tools
        tool = tools.get(name)
        if tool is None:
            result: Observation = {"error": f"unknown tool {name!r}; available: "
                                            f"{', '.join(tools)}"}
        elif not isinstance(args, dict):
            result = {"error": f"{name}: arguments must be a JSON object"}
        elif not _surely_unicode(args) and (escaped := _escaped_surrogates(args)) is not None:
            # No record can hold a lone surrogate (canonical JSON is UTF-8): the call is
            # refused, and recorded with each one written as its escape, so nothing is lost.
            args = escaped
            result = {"error": f"{name}: the arguments hold a lone surrogate (a \\ud800-style "
                               "code point, written here as its escape), which is not Unicode "
                               "text; the call was not executed: send the text as UTF-8"}
        else:
            # Tool.__call__ only forwards to fn: calling fn skips one keyword repacking (every
            # tool call of every episode comes through here).
            result = tool.fn(**args) if type(tool) is Tool else tool(**args)
        if not isinstance(args, dict):
            # The call was refused; the event's args stay an object, and what was sent is
            # kept beside the refusal, so the record never says the call had no arguments.
            args, kept = recorded_arguments(args)
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
