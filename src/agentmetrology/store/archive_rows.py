"""The streamed read behind `agm archive audit` of our own store: a campaign's administrations.

Every administration of a campaign in plan order, with its sealed binding's text and, when an
episode was recorded, the episode's ledger row exactly as `Ledger.episode` gives it (every
episode column, and the assessments by scorer with each one's record decoded): two streamed
queries side by side (administrations with their episodes, the assessments) merged by
administration, instead of three queries per key. A test holds the rows equal to the per-key
reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentmetrology.records.episode import EpisodeKey
from agentmetrology.store.ledger_records import KEY_COLUMNS
from agentmetrology.store.verify_json import decode_canonical

if TYPE_CHECKING:
    from agentmetrology.store.store import EvidenceStore

ASSESSMENT_COLUMNS = ("scorer", "scorer_version", "status", "score", "evidence_digest",
                      "assessment", "assessment_digest")
_ADMINISTRATIONS = (f"SELECT a.id, {', '.join(f'a.{c}' for c in KEY_COLUMNS)}, a.binding, e.* "
                    "FROM administrations a LEFT JOIN episodes e ON e.administration = a.id "
                    "WHERE a.campaign = ? ORDER BY a.ordinal")
# By scorer and then version: the order the per-key read's index walk gives (ORDER BY scorer).
_ASSESSMENTS = (f"SELECT s.administration, {', '.join(f's.{c}' for c in ASSESSMENT_COLUMNS)} "
                "FROM administrations a JOIN episodes e ON e.administration = a.id "
                "JOIN assessments s ON s.administration = a.id "
                "WHERE a.campaign = ? ORDER BY a.ordinal, s.scorer, s.scorer_version")


@dataclass(frozen=True, slots=True)
class Planned:
    """One administration: its key, its sealed binding's text, its episode row (None if none)."""

    key: EpisodeKey
    binding: str | None
    episode: dict[str, Any] | None


def planned_episodes(store: EvidenceStore, campaign: str, bodies: bool = True
                     ) -> Iterator[Planned]:
    """Yield every administration of a campaign in plan order with its binding and episode;
    `bodies=False` leaves each assessment's record as stored, for a caller that decodes the
    few it reads (`assessment_body`: the import reads one only when an episode is unscored,
    and decoding 20,000 records was a twentieth of a 10,000-episode audit's critical path)."""
    conn = store.ledger.conn
    rows = conn.execute(_ADMINISTRATIONS, (campaign,))
    # Opened while the first statement is active: both read the same snapshot of the ledger.
    assessments = conn.execute(_ASSESSMENTS, (campaign,))
    k = len(KEY_COLUMNS)
    episode_columns = [d[0] for d in rows.description][2 + k:]
    pending = next(assessments, None)
    for row in rows:
        key = EpisodeKey(*row[1:1 + k])
        values = row[2 + k:]
        if values[0] is None:  # no episode row: planned, not recorded
            yield Planned(key, row[1 + k], None)
            continue
        episode = dict(zip(episode_columns, values, strict=True))
        own: list[dict[str, Any]] = []
        while pending is not None and pending[0] == row[0]:
            a = dict(zip(ASSESSMENT_COLUMNS, pending[1:], strict=True))
            if bodies:
                a["assessment"] = assessment_body(a["assessment"])
            own.append(a)
            pending = next(assessments, None)
        episode["assessments"] = own
        yield Planned(key, row[1 + k], episode)


def assessment_body(text: Any) -> dict[str, Any] | None:
    """Return a sealed assessment text read back; None for one no writer produces (not JSON,
    not an object, nested deeper than Python reads, a raw BLOB): a forger's text, which the
    store check names, so the audit reports the store unqualified instead of refusing it."""
    try:
        body = decode_canonical(text)
    except (ValueError, RecursionError, TypeError):
        return None
    return body if isinstance(body, dict) else None
