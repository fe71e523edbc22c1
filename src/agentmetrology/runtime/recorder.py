"""Records every call and decision of an episode as an Event with its actor."""

from __future__ import annotations

from typing import Any, Protocol

from agentmetrology.records.clock import Clock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.events import Actor, Event, EventKind
from agentmetrology.records.tools import Observation, Tool


class TracedEnv(Protocol):
    """What a runner needs from an environment beyond its tools."""

    tools: dict[str, Tool]

    @property
    def trace(self) -> list[Any]:
        """Return the adversarial trace so far (entries with `as_dict()`)."""
        ...


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
        else:
            # Tool.__call__ only forwards to fn: calling fn skips one keyword repacking (every
            # tool call of every episode comes through here).
            result = tool.fn(**args) if type(tool) is Tool else tool(**args)
        self.add(actor, "tool_call", name, args if isinstance(args, dict) else {}, result)
        if len(env.trace) > self._trace_seen:
            self._sync_trace()
        return result

    def _sync_trace(self) -> None:
        # Adversary intents are realised inside the call; record them right after it.
        trace = self.env.trace
        while self._trace_seen < len(trace):
            item = trace[self._trace_seen]
            self._trace_seen += 1
            if getattr(item, "perturbations", True) == ():
                continue  # nothing was perturbed: no event (skips building the dict)
            entry = item.as_dict()
            if entry["perturbations"]:
                self.add("adversary", "perturbation", "intents", {}, entry)
