"""Read an evidence store without ever writing it: plain read-only SQL and verified blob reads.

The store's own classes create missing tables and the blobs folder when they open a store, so
the viewer does not use them to open it. Each request opens its own SQLite connection with a
`mode=ro` URI. When no write-ahead log exists (no writer has the store open), the connection is
also `immutable=1`, so SQLite creates no `-wal`/`-shm` files beside the ledger: browsing leaves
every byte and timestamp of the store as it was.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from agentmetrology.records.canonical import decode_json
from agentmetrology.records.episode import MEASUREMENT_FAILURES, TERMINATIONS
from agentmetrology.store.paths import StorePathError, blob_path
from agentmetrology.store.schema import SCHEMA_VERSION
from agentmetrology.store.status import CampaignStatus, campaign_status
from agentmetrology.view.source import LEDGER_FILE

KEY_FIELDS = ("campaign", "target", "task", "seed", "condition", "level", "repeat")
VERDICTS = ("PASS", "FAIL", "PARTIAL", "UNKNOWN", "INVALID")
# Administration states a user can filter on: recorded terminations, and the unrecorded ones.
STATES = ("pending", "not_launched", "recorded", "measurement_failure", *TERMINATIONS)
UNSCORED = ("UNKNOWN", "INVALID")  # a missing measurement: never averaged as a zero


class StoreReadError(Exception):
    """Raised when the ledger cannot be read (corrupt, locked, or an unknown schema)."""


@dataclass(frozen=True, slots=True)
class EpisodeFilter:
    """Filters of the episode index (all optional, all exact matches)."""

    campaign: str | None = None
    target: str | None = None
    task: str | None = None
    seed: int | None = None
    level: str | None = None
    condition: str | None = None
    status: str | None = None  # one of STATES
    verdict: str | None = None  # one of VERDICTS, of any scorer (or of `scorer`)
    scorer: str | None = None

    def where(self) -> tuple[str, list[Any]]:
        """Return the SQL WHERE clause (over `a` administrations, `e` episodes) and its values."""
        parts: list[str] = []
        values: list[Any] = []
        for name in ("campaign", "target", "task", "seed", "level", "condition"):
            v = getattr(self, name)
            if v is not None:
                parts.append(f"a.{name} = ?")
                values.append(v)
        s = self.status
        if s == "pending":
            parts.append("e.administration IS NULL")
        elif s == "not_launched":
            parts.append("e.administration IS NULL AND a.not_launched IS NOT NULL")
        elif s == "recorded":
            parts.append("e.administration IS NOT NULL")
        elif s == "measurement_failure":
            parts.append("e.measurement_failure = 1")
        elif s is not None:
            parts.append("e.termination = ?")
            values.append(s)
        if self.verdict is not None or self.scorer is not None:
            sub = "SELECT 1 FROM assessments s WHERE s.administration = a.id"
            if self.verdict is not None:
                sub += " AND s.status = ?"
                values.append(self.verdict)
            if self.scorer is not None:
                sub += " AND s.scorer = ?"
                values.append(self.scorer)
            parts.append(f"EXISTS ({sub})")
        return (" WHERE " + " AND ".join(parts)) if parts else "", values


@dataclass(frozen=True, slots=True)
class EpisodeKeyQuery:
    """The idempotency key of one administration, as a deep link gives it."""

    campaign: str
    target: str
    task: str
    seed: int
    condition: str
    level: str
    repeat: int

    def query(self) -> str:
        """Return the key as a URL query string (the episode page's deep link)."""
        return "&".join(f"{k}={quote(str(getattr(self, k)), safe='')}" for k in KEY_FIELDS)


class StoreReader:
    """Read-only queries over one store's ledger and blobs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ledger = root / LEDGER_FILE
        self._choices: tuple[tuple[int, ...], dict[str, list[Any]]] | None = None

    def state(self) -> tuple[int, ...]:
        """Return a cheap signature of the ledger's state (size and mtime of it and its log)."""
        out: list[int] = []
        for f in (self.ledger, self.ledger.with_name(LEDGER_FILE + "-wal")):
            try:
                st = f.stat()
                out += [st.st_size, st.st_mtime_ns]
            except OSError:
                out += [-1, -1]
        return tuple(out)

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """Yield a read-only connection (immutable when no writer has the store open)."""
        wal = self.ledger.with_name(LEDGER_FILE + "-wal")
        uri = f"file:{quote(str(self.ledger))}?mode=ro"
        if not wal.exists():
            uri += "&immutable=1"
        try:
            conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreReadError(f"cannot open the ledger {self.ledger} read-only: {exc}") from exc
        with closing(conn):
            try:
                conn.execute("PRAGMA query_only = ON")  # belt and braces: nothing may write
                yield conn
            except sqlite3.DatabaseError as exc:
                raise StoreReadError(f"cannot read the ledger {self.ledger}: {exc}") from exc

    def check(self) -> None:
        """Raise StoreReadError (one line) unless the ledger reads and has a known schema."""
        with self.connect() as c:
            row = c.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            c.execute("SELECT COUNT(*) FROM campaigns").fetchone()
        if row is None or row[0] != SCHEMA_VERSION:
            found = "no schema" if row is None else f"schema {row[0]}"
            raise StoreReadError(f"the ledger {self.ledger} has {found}; this version reads "
                                 f"schema {SCHEMA_VERSION}")

    # -- campaigns ----------------------------------------------------------------------------

    def campaigns(self) -> list[CampaignStatus]:
        """Return the status of every campaign, oldest first (the store's own status rules)."""
        with self.connect() as c:
            cur = c.execute("SELECT * FROM campaigns ORDER BY created_at")
            cols = [d[0] for d in cur.description]
            rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
            return [campaign_status(c, row) for row in rows]

    def campaign(self, name: str) -> CampaignStatus | None:
        """Return one campaign's status, or None if the store has no such campaign."""
        with self.connect() as c:
            cur = c.execute("SELECT * FROM campaigns WHERE name = ?", (name,))
            row = cur.fetchone()
            if row is None:
                return None
            return campaign_status(c, dict(zip([d[0] for d in cur.description], row,
                                               strict=True)))

    def summaries(self) -> list[dict[str, Any]]:
        """Return each campaign's progress and cost, by the store's status rules, quickly.

        `store.status.campaign_status` computes more (attempt counts, per-target scores) and
        reads every wide administration row several times; the front page needs only these
        totals, read through the key index (a test holds them equal to the store's status).
        """
        with self.connect() as c:
            rows = {r[0]: {"campaign": r[0], "registration_id": r[1], "planned": 0, "done": 0,
                           "submitted": 0, "failed_agent": 0, "failed_infra": 0, "errored": 0,
                           "not_launched": 0, "cost": 0.0, "cost_unknown": 0}
                    for r in c.execute("SELECT name, registration_id FROM campaigns "
                                       "ORDER BY created_at")}
            for name, planned, done, sub, agent, infra, cost, unknown in c.execute(_SUMMARY):
                rows[name].update(planned=planned, done=done, submitted=sub, failed_agent=agent,
                                  failed_infra=infra, cost=float(cost), cost_unknown=unknown)
            for query, field in ((_SUMMARY_NOT_LAUNCHED, "not_launched"),
                                 (_SUMMARY_ERRORED, "errored")):
                for name, n in _rows(c, query):
                    rows[name][field] = n
            for query in (_SUMMARY_SUPERSEDED, _SUMMARY_UNRECORDED):
                for name, cost, unknown in _rows(c, query):
                    rows[name]["cost"] += float(cost)
                    rows[name]["cost_unknown"] += unknown
        for r in rows.values():
            r["remaining"] = r["planned"] - r["done"]
            r["complete"] = r["remaining"] == 0
        return list(rows.values())

    def grid(self, campaign: str) -> list[dict[str, Any]]:
        """Return progress and per-scorer scores per target × level × condition."""
        cells: dict[tuple[str, str, str], dict[str, Any]] = {}
        with self.connect() as c:
            for r in c.execute(_GRID_PROGRESS, (campaign,)):
                cells[(r[0], r[1], r[2])] = {
                    "target": r[0], "level": r[1], "condition": r[2], "planned": r[3],
                    "done": r[4], "submitted": r[5], "failed_agent": r[6], "failed_infra": r[7],
                    "not_launched": 0, "cost_known": float(r[8]), "cost_unknown": r[9],
                    "errored": 0, "scores": {}}
            for target, level, cond, n in _rows(c, _GRID_NOT_LAUNCHED, (campaign,)):
                cells[(target, level, cond)]["not_launched"] = n
            for target, level, cond, n in _rows(c, _GRID_ERRORED, (campaign,)):
                cells[(target, level, cond)]["errored"] = n
            for target, level, cond, scorer, status, n, total, scored in c.execute(
                    _GRID_SCORES, (campaign,)):
                cell = cells[(target, level, cond)]
                s = cell["scores"].setdefault(scorer, {"n": 0, "statuses": {}, "_sum": 0.0,
                                                       "scored": 0})
                s["n"] += n
                s["statuses"][status] = n
                if status not in UNSCORED:
                    s["_sum"] += total
                    s["scored"] += scored
        for cell in cells.values():
            for s in cell["scores"].values():
                total = s.pop("_sum")
                s["mean"] = total / s["scored"] if s["scored"] else None
        return [cells[k] for k in sorted(cells)]

    # -- episodes -----------------------------------------------------------------------------

    def episodes(self, f: EpisodeFilter, limit: int, offset: int
                 ) -> tuple[list[dict[str, Any]], int]:
        """Return one page of administrations (with episode summary and scores) and the total."""
        where, values = f.where()
        with self.connect() as c:
            total = c.execute("SELECT COUNT(*) FROM administrations a LEFT JOIN episodes e "
                              f"ON e.administration = a.id{where}", values).fetchone()[0]
            cur = c.execute(
                "SELECT a.id, a.campaign, a.target, a.task, a.seed, a.condition, a.level, "
                "a.repeat, a.not_launched, e.termination, e.termination_detail, "
                "e.measurement_failure, e.cost, e.input_tokens, e.output_tokens, "
                "e.administration IS NOT NULL AS recorded, "
                "(SELECT COUNT(*) FROM attempts t WHERE t.administration = a.id) AS attempts "
                "FROM administrations a LEFT JOIN episodes e ON e.administration = a.id"
                f"{where} ORDER BY a.id LIMIT ? OFFSET ?", [*values, limit, offset])
            cols = [d[0] for d in cur.description]
            rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
            _attach_scores(c, rows)
        return rows, int(total)

    def choices(self) -> dict[str, list[Any]]:
        """Return the distinct values of each filterable key field (for the filter form).

        Kept until the ledger changes: they change only when a campaign is registered.
        """
        state = self.state()
        if self._choices is not None and self._choices[0] == state:
            return self._choices[1]
        out: dict[str, list[Any]] = {}
        with self.connect() as c:
            for name in ("campaign", "target", "task", "level", "condition"):
                out[name] = [r[0] for r in c.execute(
                    f"SELECT DISTINCT {name} FROM administrations ORDER BY {name} LIMIT 1000")]
            out["scorer"] = [r[0] for r in c.execute(
                "SELECT DISTINCT scorer FROM assessments ORDER BY scorer LIMIT 100")]
        self._choices = (state, out)
        return out

    def episode(self, key: EpisodeKeyQuery) -> dict[str, Any] | None:
        """Return everything the ledger holds about one administration, or None."""
        with self.connect() as c:
            cur = c.execute("SELECT * FROM administrations WHERE " +
                            " AND ".join(f"{k} = ?" for k in KEY_FIELDS),
                            [getattr(key, k) for k in KEY_FIELDS])
            row = cur.fetchone()
            if row is None:
                return None
            adm = dict(zip([d[0] for d in cur.description], row, strict=True))
            out: dict[str, Any] = {"administration": adm}
            out["episode"] = _one(c, "SELECT * FROM episodes WHERE administration = ?",
                                  (adm["id"],))
            out["assessments"] = _all(c, "SELECT * FROM assessments WHERE administration = ? "
                                         "ORDER BY scorer, scorer_version", (adm["id"],))
            out["attempts"] = _all(c, "SELECT * FROM attempts WHERE administration = ? "
                                      "ORDER BY id", (adm["id"],))
            for t in out["attempts"]:
                t["billable"] = _all(c, "SELECT * FROM billable_attempts WHERE attempt = ? "
                                        "ORDER BY id", (t["id"],))
            out["superseded"] = _all(c, "SELECT * FROM superseded_episodes "
                                        "WHERE administration = ? ORDER BY id", (adm["id"],))
            for s in out["superseded"]:
                s["assessments"] = _all(c, "SELECT * FROM superseded_assessments "
                                           "WHERE superseded = ? ORDER BY scorer", (s["id"],))
        for a in (*out["assessments"], *(x for s in out["superseded"]
                                         for x in s["assessments"])):
            a["record"] = decode_json(a["assessment"])
        return out

    # -- blobs --------------------------------------------------------------------------------

    def blob(self, digest: str) -> bytes:
        """Return a blob's bytes after checking they hash to `digest` (StoreReadError if not)."""
        try:
            path = blob_path(self.root, digest)
        except StorePathError as exc:
            raise StoreReadError(str(exc)) from exc
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise StoreReadError(f"blob {digest} cannot be read: {exc}") from exc
        if hashlib.sha256(data).hexdigest() != digest:
            raise StoreReadError(f"blob {digest} is corrupt: its bytes no longer hash to its "
                                 "digest")
        return data

    def blob_json(self, digest: str) -> Any:
        """Return a JSON blob decoded (non-finite floats restored as the store tags them)."""
        return decode_json(self.blob(digest))


def is_measurement_failure(termination: str | None) -> bool:
    """Return True when a termination says nothing about the agent."""
    return termination in MEASUREMENT_FAILURES


def _one(c: sqlite3.Connection, sql: str, args: Sequence[Any]) -> dict[str, Any] | None:
    rows = _all(c, sql, args)
    return rows[0] if rows else None


def _all(c: sqlite3.Connection, sql: str, args: Sequence[Any]) -> list[dict[str, Any]]:
    try:
        cur = c.execute(sql, args)
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):  # an older store without the later history tables
            return []
        raise
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def _rows(c: sqlite3.Connection, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    try:
        return c.execute(sql, args).fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):  # an older store without the later history tables
            return []
        raise


def _attach_scores(c: sqlite3.Connection, rows: list[dict[str, Any]]) -> None:
    by_id = {r["id"]: r for r in rows}
    for r in rows:
        r["scores"] = {}
    if not by_id:
        return
    marks = ",".join("?" * len(by_id))
    for adm, scorer, status, score in c.execute(
            "SELECT administration, scorer, status, score FROM assessments "
            f"WHERE administration IN ({marks}) ORDER BY scorer", list(by_id)):
        by_id[adm]["scores"][scorer] = {"status": status, "score": score}


# The front page's totals, by the rules of store.status (same columns, grouped by campaign),
# written so that SQLite reads the narrow key index instead of every wide administration row.
_SUMMARY = """
SELECT a.campaign, COUNT(*), COUNT(e.administration),
       COALESCE(SUM(e.termination = 'submitted'), 0),
       COALESCE(SUM(e.termination != 'submitted' AND e.measurement_failure = 0), 0),
       COALESCE(SUM(e.measurement_failure = 1), 0),
       TOTAL(e.cost), COALESCE(SUM(e.administration IS NOT NULL AND e.cost IS NULL), 0)
FROM administrations a LEFT JOIN episodes e ON e.administration = a.id GROUP BY a.campaign
"""
_SUMMARY_NOT_LAUNCHED = """
SELECT a.campaign, COUNT(*) FROM administrations a
WHERE a.not_launched IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.administration = a.id)
GROUP BY a.campaign
"""
# Not recorded, and the latest attempt failed: found from the (few) failed attempts.
_SUMMARY_ERRORED = """
SELECT a.campaign, COUNT(DISTINCT t.administration) FROM attempts t
JOIN administrations a ON a.id = t.administration
WHERE t.status = 'failed'
  AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.administration = t.administration)
  AND t.id = (SELECT MAX(t2.id) FROM attempts t2 WHERE t2.administration = t.administration)
GROUP BY a.campaign
"""
_SUMMARY_SUPERSEDED = """
SELECT a.campaign, TOTAL(s.cost), COALESCE(SUM(s.cost IS NULL), 0)
FROM superseded_episodes s JOIN administrations a ON a.id = s.administration
GROUP BY a.campaign
"""
_SUMMARY_UNRECORDED = """
SELECT a.campaign, TOTAL(b.cost), COUNT(DISTINCT CASE WHEN b.cost IS NULL THEN b.attempt END)
FROM billable_attempts b JOIN attempts t ON t.id = b.attempt
JOIN administrations a ON a.id = t.administration
WHERE NOT EXISTS (SELECT 1 FROM episodes e WHERE e.attempt = b.attempt)
  AND NOT EXISTS (SELECT 1 FROM superseded_episodes s WHERE s.attempt = b.attempt)
GROUP BY a.campaign
"""

# Through the key index alone (it covers every column here), never the wide administration
# rows; the not-launched counts come apart, from the few administrations without an episode.
_GRID_PROGRESS = """
SELECT a.target, a.level, a.condition, COUNT(*), COUNT(e.administration),
       COALESCE(SUM(e.termination = 'submitted'), 0),
       COALESCE(SUM(e.termination != 'submitted' AND e.measurement_failure = 0), 0),
       COALESCE(SUM(e.measurement_failure = 1), 0),
       TOTAL(e.cost), COALESCE(SUM(e.administration IS NOT NULL AND e.cost IS NULL), 0)
FROM administrations a LEFT JOIN episodes e ON e.administration = a.id
WHERE a.campaign = ? GROUP BY a.target, a.level, a.condition
"""
_GRID_NOT_LAUNCHED = """
SELECT a.target, a.level, a.condition, COUNT(*)
FROM administrations a INDEXED BY sqlite_autoindex_administrations_2
LEFT JOIN episodes e ON e.administration = a.id
WHERE a.campaign = ? AND e.administration IS NULL AND a.not_launched IS NOT NULL
GROUP BY a.target, a.level, a.condition
"""
# Not recorded, and the latest attempt failed outside the agent (infrastructure, as in the
# store's status).
_GRID_ERRORED = """
SELECT a.target, a.level, a.condition, COUNT(DISTINCT t.administration) FROM attempts t
JOIN administrations a ON a.id = t.administration
WHERE a.campaign = ? AND t.status = 'failed'
  AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.administration = t.administration)
  AND t.id = (SELECT MAX(t2.id) FROM attempts t2 WHERE t2.administration = t.administration)
GROUP BY a.target, a.level, a.condition
"""
# Measurement failures are excluded from scores, as in the store's status.
_GRID_SCORES = """
SELECT a.target, a.level, a.condition, s.scorer, s.status, COUNT(*), TOTAL(s.score),
       COUNT(s.score)
FROM assessments s JOIN administrations a ON a.id = s.administration
JOIN episodes e ON e.administration = s.administration
WHERE a.campaign = ? AND e.measurement_failure = 0
GROUP BY a.target, a.level, a.condition, s.scorer, s.status
"""


def pretty_json(value: Any) -> str:
    """Return indented JSON text of a value (non-finite floats as their names)."""
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False, default=str)
