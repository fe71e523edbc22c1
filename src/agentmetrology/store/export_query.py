"""The streamed read behind `agm export`: a campaign's recorded episodes in one query.

One query per campaign walks its recorded episodes in plan order with their assessments
(never one query per episode, never every row in memory), and checks each sealed binding
against its digest as `EvidenceStore.binding` does (BlobCorruptError names the key). What
run.export builds from each is the same row the per-key reads gave (a test holds them equal).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from agentmetrology.records.episode import EpisodeKey
from agentmetrology.store.blobs import BlobCorruptError
from agentmetrology.store.ledger_records import KEY_COLUMNS

if TYPE_CHECKING:
    from agentmetrology.store.store import EvidenceStore

# the episode columns an export row reads (the ledger's names, as `Ledger.episode` gives them)
EPISODE_COLUMNS = ("termination", "termination_detail", "requests", "tool_calls",
                   "model_attempts", "input_tokens", "output_tokens", "cost", "episode_digest",
                   "submission_digest")
ASSESSMENT_COLUMNS = ("scorer", "scorer_version", "status", "score", "assessment_digest")
_ROWS = (f"SELECT a.id, {', '.join(f'a.{c}' for c in KEY_COLUMNS)}, a.binding, "
         f"a.binding_digest, {', '.join(f'e.{c}' for c in EPISODE_COLUMNS)}, "
         f"{', '.join(f's.{c}' for c in ASSESSMENT_COLUMNS)} "
         "FROM administrations a JOIN episodes e ON e.administration = a.id "
         "LEFT JOIN assessments s ON s.administration = a.id "
         "WHERE a.campaign = ? ORDER BY a.ordinal, s.scorer, s.scorer_version")  # indexes' order
# (key, episode row with its assessments, the sealed binding parsed, the binding digest)
Recorded = tuple[EpisodeKey, dict[str, Any], dict[str, Any], str]


def recorded_episodes(store: EvidenceStore, campaign: str) -> Iterator[Recorded]:
    """Yield each recorded episode of a campaign in plan order (BlobCorruptError on a binding
    that no longer hashes to its digest)."""
    current: Recorded | None = None
    last = None
    k, e = len(KEY_COLUMNS), len(EPISODE_COLUMNS)
    for row in store.ledger.conn.execute(_ROWS, (campaign,)):
        if row[0] != last:
            if current is not None:
                yield current
            last = row[0]
            key = EpisodeKey(*row[1:1 + k])
            text, digest = row[1 + k], row[2 + k]
            if hashlib.sha256(text.encode("utf-8")).hexdigest() != digest:
                raise BlobCorruptError(f"the bindings of {key} no longer hash to {digest}")
            led = dict(zip(EPISODE_COLUMNS, row[3 + k:3 + k + e], strict=True))
            led["assessments"] = []
            current = (key, led, dict(json.loads(text)), digest)
        assessment = row[3 + k + e:]
        if assessment[0] is not None and current is not None:
            current[1]["assessments"].append(dict(zip(ASSESSMENT_COLUMNS, assessment,
                                                      strict=True)))
    if current is not None:
        yield current


def _in(campaigns: Sequence[str]) -> tuple[str, tuple[str]]:
    return "a.campaign IN (SELECT value FROM json_each(?))", (json.dumps(list(campaigns)),)


def unrecorded_count(store: EvidenceStore, campaigns: Sequence[str]) -> int:
    """Return how many administrations of `campaigns` have no recorded episode."""
    where, params = _in(campaigns)
    return int(store.ledger.conn.execute(
        f"SELECT COUNT(*) FROM administrations a WHERE {where} AND NOT EXISTS "
        "(SELECT 1 FROM episodes e WHERE e.administration = a.id)", params).fetchone()[0])


def scorer_names(store: EvidenceStore, campaigns: Sequence[str]) -> list[str]:
    """Return the scorers of the recorded episodes of `campaigns`, sorted."""
    where, params = _in(campaigns)
    return sorted(str(r[0]) for r in store.ledger.conn.execute(
        "SELECT DISTINCT s.scorer FROM assessments s JOIN administrations a "
        f"ON a.id = s.administration JOIN episodes e ON e.administration = a.id WHERE {where}",
        params))
