"""Pure data types: events, episodes, assessments, canonical JSON (randomness: runtime.rng)."""

from agentmetrology.records.assessment import STATUSES, Assessment, Status
from agentmetrology.records.canonical import canonical_json, digest, sha256_hex, to_plain
from agentmetrology.records.episode import (
    TERMINATIONS,
    BillableAttempt,
    Episode,
    EpisodeKey,
    Termination,
    TerminationKind,
    Usage,
)
from agentmetrology.records.events import ACTORS, Actor, Event

__all__ = [
    "ACTORS",
    "STATUSES",
    "TERMINATIONS",
    "Actor",
    "Assessment",
    "BillableAttempt",
    "Episode",
    "EpisodeKey",
    "Event",
    "Status",
    "Termination",
    "TerminationKind",
    "Usage",
    "canonical_json",
    "digest",
    "sha256_hex",
    "to_plain",
]
