"""Episodes, terminations, usage and billable attempts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from agentmetrology.records.canonical import from_plain
from agentmetrology.records.events import Event
from agentmetrology.records.transcript import Transcript

TerminationKind = Literal[
    "submitted",
    "budget_exhausted",
    "step_limit",
    "deadline",
    "agent_error",
    "infra_error",
    "cancelled",
]
TERMINATIONS: tuple[str, ...] = get_args(TerminationKind)
# Infrastructure failures are measurement failures, never agent failures.
MEASUREMENT_FAILURES: frozenset[str] = frozenset({"infra_error", "cancelled"})


@dataclass(frozen=True, slots=True)
class Termination:
    """How an episode ended, with a human-readable detail."""

    kind: TerminationKind
    detail: str = ""

    @property
    def is_measurement_failure(self) -> bool:
        """Return True when the ending says nothing about the agent (infra error, cancelled)."""
        return self.kind in MEASUREMENT_FAILURES


@dataclass(frozen=True, slots=True)
class BillableAttempt:
    """One provider request (retries included), so that cost is counted once per billable event."""

    attempt_id: str
    provider: str
    model: str
    request_id: str | None
    input_tokens: int | None
    output_tokens: int | None
    cached_tokens: int | None
    cost: float | None
    latency_s: float
    outcome: str


@dataclass(slots=True)
class Usage:
    """Aggregate usage of an episode: tool calls, requests, and billable model attempts."""

    tool_calls: int = 0
    requests: int = 0
    attempts: list[BillableAttempt] = field(default_factory=list)

    @property
    def input_tokens(self) -> int:
        """Return the summed input tokens over attempts (unknown counts as 0 here)."""
        return sum(a.input_tokens or 0 for a in self.attempts)

    @property
    def output_tokens(self) -> int:
        """Return the summed output tokens over attempts."""
        return sum(a.output_tokens or 0 for a in self.attempts)

    @property
    def cost(self) -> float | None:
        """Return the summed cost, or None when any attempt's cost is unknown."""
        costs = [a.cost for a in self.attempts]
        if any(c is None for c in costs):
            return None
        return float(sum(c for c in costs if c is not None))


@dataclass(frozen=True, slots=True)
class EpisodeKey:
    """The idempotency key of an administration."""

    campaign: str
    target: str
    task: str
    seed: int
    condition: str
    level: str
    repeat: int = 0


@dataclass(slots=True)
class Episode:
    """A complete episode record: who, what, every event, the submission and how it ended."""

    key: EpisodeKey
    target: str
    task: str
    seed: int
    condition: str
    level: str
    events: list[Event]
    submission: dict[str, str] | None
    termination: Termination
    usage: Usage
    digests: dict[str, str] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    # A model's requests and responses: stored as blobs of their own, bound by
    # digests["transcript"]; not part of the episode's own JSON (model-free: None).
    transcript: Transcript | None = field(default=None, compare=False,
                                          metadata={"canonical": False})


def episode_from_plain(plain: dict[str, Any]) -> Episode:
    """Return the Episode of its stored plain JSON (as `to_plain` wrote it)."""
    doc = from_plain(plain)
    usage = doc.get("usage") or {}
    term = doc.get("termination") or {}
    return Episode(
        key=EpisodeKey(**doc["key"]), target=doc["target"], task=doc["task"], seed=doc["seed"],
        condition=doc["condition"], level=doc["level"],
        events=[Event(e["seq"], e["actor"], e["kind"], e["name"], e.get("args") or {},
                      e.get("result"), e.get("t", 0.0)) for e in doc.get("events") or []],
        submission=doc.get("submission"),
        termination=Termination(term.get("kind", "agent_error"), term.get("detail", "")),
        usage=Usage(int(usage.get("tool_calls") or 0), int(usage.get("requests") or 0),
                    [BillableAttempt(**a) for a in usage.get("attempts") or []]),
        digests=dict(doc.get("digests") or {}), meta=dict(doc.get("meta") or {}))
