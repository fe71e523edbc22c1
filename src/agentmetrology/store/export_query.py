"""The streamed read behind `agm export`: a campaign's recorded episodes in plan order.

A campaign's recorded episodes are walked in plan order with their assessments (never one query
per episode, never every row in memory), and each sealed binding is checked against its digest
as `EvidenceStore.binding` does (BlobCorruptError names the key). What run.export builds from
each is the same row the per-key reads gave (a test holds them equal).

`recorded_rows` is the fast walk `agm export` takes: two streamed queries side by side (the
episodes, the assessments), merged by administration, so a binding's text is read once per
episode rather than once per assessment (a join repeats it on every assessment's row), and the
rows stay plain tuples.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from itertools import groupby
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from agentmetrology.records.episode import EpisodeKey
from agentmetrology.store.blobs import BlobCorruptError
from agentmetrology.store.ledger_records import KEY_COLUMNS
from agentmetrology.store.schema import SERVED_EPISODE_SQL, TOKENS_UNKNOWN_SQL
from agentmetrology.store.verify_schema import has_index_as_defined

if TYPE_CHECKING:
    from agentmetrology.store.store import EvidenceStore

# the episode columns an export row reads (the ledger's names, as `Ledger.episode` gives them)
EPISODE_COLUMNS = ("termination", "termination_detail", "requests", "tool_calls",
                   "model_attempts", "input_tokens", "output_tokens", "cost", "episode_digest",
                   "submission_digest")
ASSESSMENT_COLUMNS = ("scorer", "scorer_version", "status", "score", "assessment_digest")
# The binding comes as its stored bytes (the ledger's text is UTF-8): hashed as they are, with
# no decoding into a str and encoding back for every episode.
_EPISODES = (f"SELECT a.id, CAST(a.binding AS BLOB), a.binding_digest, "
             f"{', '.join(f'a.{c}' for c in KEY_COLUMNS)}, "
             f"{', '.join(f'e.{c}' for c in EPISODE_COLUMNS)}, "
             # whether a request of the episode has unknown token counts (the row's counts
             # sum the known ones): one index seek, nothing found for a model-free episode;
             # or the episode was served to a client whose requests are never seen
             f"({SERVED_EPISODE_SQL} OR EXISTS (SELECT 1 FROM billable_attempts b "
             f"WHERE b.attempt = e.attempt AND {TOKENS_UNKNOWN_SQL})) "
             "FROM administrations a JOIN episodes e ON e.administration = a.id "
             "WHERE a.campaign = ? ORDER BY a.ordinal")
_ASSESSMENTS = (f"SELECT s.administration, {', '.join(f's.{c}' for c in ASSESSMENT_COLUMNS)} "
                "FROM administrations a JOIN episodes e ON e.administration = a.id "
                "JOIN assessments s ON s.administration = a.id "
                "WHERE a.campaign = ? ORDER BY a.ordinal, s.scorer, s.scorer_version")
_BINDING_TEXT = "SELECT binding FROM administrations WHERE id = ?"
# (the administration's id, the binding's UTF-8 bytes, its digest, the key's columns, then
# EPISODE_COLUMNS, then 1 when a request's token counts are unknown, else 0), and the
# episode's assessments as (administration, *ASSESSMENT_COLUMNS) tuples in (scorer, version)
# order
RecordedRow = tuple[tuple[Any, ...], Sequence[tuple[Any, ...]]]
KEY_AT = 3  # where the key's columns start in a recorded row
_NO_ASSESSMENTS: tuple[Any, ...] = ()


def recorded_rows(store: EvidenceStore, campaign: str) -> Iterator[RecordedRow]:
    """Yield each recorded episode of a campaign in plan order as plain tuples, its binding's
    text checked against its digest (BlobCorruptError names the key when it no longer hashes)."""
    conn = store.ledger.conn
    episodes = conn.execute(_EPISODES, (campaign,))
    # Opened while the episodes' statement is still active, so both read in the one implicit
    # read transaction that statement holds: the same snapshot of the ledger. Grouped by
    # administration in C (both walks are in plan order), not merged row by row in Python.
    groups = groupby(conn.execute(_ASSESSMENTS, (campaign,)), itemgetter(0))
    sha256 = hashlib.sha256
    at, own = next(groups, (None, _NO_ASSESSMENTS))
    for row in episodes:
        if sha256(row[1]).hexdigest() != row[2]:
            row = _as_text(conn, row)
        if at == row[0]:
            yield row, list(own)
            at, own = next(groups, (None, _NO_ASSESSMENTS))
        else:
            yield row, _NO_ASSESSMENTS


def _as_text(conn: sqlite3.Connection, row: tuple[Any, ...]) -> tuple[Any, ...]:
    """Return the row with its binding as the str the ledger gives (what the digest was taken
    of, UTF-8 encoded, as `EvidenceStore.binding` checks it), or BlobCorruptError naming the
    key when that no longer hashes to the digest (a text the ledger cannot decode raises as the
    ledger's own read does)."""
    text = conn.execute(_BINDING_TEXT, (row[0],)).fetchone()[0]
    digest = row[2]
    if hashlib.sha256(text.encode("utf-8")).hexdigest() != digest:
        key = EpisodeKey(*row[KEY_AT:KEY_AT + len(KEY_COLUMNS)])
        raise BlobCorruptError(f"the bindings of {key} no longer hash to {digest}")
    return (row[0], text, *row[2:])


def _in(campaigns: Sequence[str]) -> tuple[str, tuple[str]]:
    return "a.campaign IN (SELECT value FROM json_each(?))", (json.dumps(list(campaigns)),)


def unrecorded_count(store: EvidenceStore, campaigns: Sequence[str]) -> int:
    """Return how many administrations of `campaigns` have no recorded episode."""
    where, params = _in(campaigns)
    return int(store.ledger.conn.execute(
        f"SELECT COUNT(*) FROM administrations a WHERE {where} AND NOT EXISTS "
        "(SELECT 1 FROM episodes e WHERE e.administration = a.id)", params).fetchone()[0])


# The distinct scorers of the whole store by one index seek each (the writer's
# `assessments_scorers` index), each kept when one of its assessments is of a recorded episode
# of the campaigns: when every campaign is exported that is the first one found, where the
# DISTINCT over the join reads every assessment (0.06 s of a 100k-episode export).
_SCORERS_BY_SEEKS = """WITH RECURSIVE d(scorer) AS (
    SELECT MIN(scorer) FROM assessments
    UNION ALL
    SELECT (SELECT MIN(scorer) FROM assessments WHERE scorer > d.scorer) FROM d
    WHERE d.scorer IS NOT NULL)
SELECT d.scorer FROM d WHERE d.scorer IS NOT NULL AND EXISTS (
    SELECT 1 FROM assessments s JOIN administrations a ON a.id = s.administration
    JOIN episodes e ON e.administration = a.id WHERE s.scorer = d.scorer AND {where})"""
_SCORERS_BY_JOIN = ("SELECT DISTINCT s.scorer FROM assessments s JOIN administrations a "
                    "ON a.id = s.administration JOIN episodes e ON e.administration = a.id "
                    "WHERE {where}")


def scorer_names(store: EvidenceStore, campaigns: Sequence[str]) -> list[str]:
    """Return the scorers of the recorded episodes of `campaigns`, sorted."""
    where, params = _in(campaigns)
    conn = store.ledger.conn
    # Seeks only for the whole store: for a few of its campaigns, a scorer of the others alone
    # would be looked for through all its assessments, where the join reads only theirs.
    every = bool(campaigns) and set(campaigns) == set(store.campaigns())
    indexed = has_index_as_defined(conn, "assessments_scorers")
    sql = _SCORERS_BY_SEEKS if every and indexed else _SCORERS_BY_JOIN
    return sorted(str(r[0]) for r in conn.execute(sql.format(where=where), params))
