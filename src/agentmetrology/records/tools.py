"""The tool protocol: a named, described, JSON-schema'd callable that returns an observation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentmetrology.records.clock import Clock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.events import Actor, Event, EventKind

Observation = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What an agent is told about a tool: name, description and JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """Return the spec as a plain dict (name, description, parameters)."""
        return {"name": self.name, "description": self.description,
                "parameters": self.parameters}


# Not frozen: every episode makes its tools (ComtradeEnv three), and a frozen slotted dataclass
# costs three times as much to make; its spec holds a dict, so a Tool was never hashable.
@dataclass(slots=True)
class Tool:
    """A tool: its spec and the callable that executes it with keyword arguments."""

    spec: ToolSpec
    fn: Callable[..., Observation]

    @property
    def name(self) -> str:
        """Return the tool's name."""
        return self.spec.name

    def __call__(self, **kwargs: Any) -> Observation:
        """Run the tool and return its observation."""
        return self.fn(**kwargs)


class ToolRecorder(Protocol):
    """What a harness program uses to act on an episode's tools: every call and decision it
    makes becomes an Event with its actor (runtime/recorder.py is the implementation)."""

    clock: Clock
    events: list[Event]
    attempts: list[BillableAttempt]

    def add(self, actor: Actor, kind: EventKind, name: str, args: dict[str, Any],
            result: Any) -> Event:
        """Append one event stamped with the clock."""
        ...

    def call(self, actor: Actor, name: str, args: dict[str, Any]) -> Observation:
        """Execute a tool as `actor`; unknown tools and bad arguments give error observations."""
        ...
