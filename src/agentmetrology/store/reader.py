"""Read an evidence store by its path without ever writing it (the viewer's way in).

`StoreReader` answers named questions (campaigns and their progress, the episode index, one
administration with its attempts, billing, assessments and history, a verified blob) with plain
records. The store's own classes create missing tables and the blobs folder when they open a
store, so the reader does not use them to open it. Each call opens its own SQLite connection
with a `mode=ro` URI. When no write-ahead log exists (no writer has the store open), the
connection is also `immutable=1`, so SQLite creates no `-wal`/`-shm` files beside the ledger:
reading leaves every byte and timestamp of the store as it was.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from agentmetrology.records.canonical import decode_json
from agentmetrology.records.episode import EpisodeKey
from agentmetrology.store.blobs import BlobCorruptError, read_blob_file
from agentmetrology.store.campaign_overview import (
    CampaignOverview,
    campaign_grid,
    campaign_overview,
    rows_if_any,
)
from agentmetrology.store.errors import StoreError
from agentmetrology.store.grader_verdicts import run_verdicts, verdict_runs
from agentmetrology.store.ledger_reader import LedgerReader
from agentmetrology.store.ledger_records import key_text
from agentmetrology.store.overview_memo import kept_overview, kept_summaries
from agentmetrology.store.paths import StorePathError, blob_path
from agentmetrology.store.reader_choices import distinct_values
from agentmetrology.store.reader_queries import (
    KEY_FIELDS,
    SUMMARY,
    SUMMARY_ERRORED,
    SUMMARY_NOT_LAUNCHED,
    SUMMARY_SUPERSEDED,
    SUMMARY_UNRECORDED,
    EpisodeFilter,
)
from agentmetrology.store.schema import SCHEMA_VERSION
from agentmetrology.store.status import CampaignStatus, campaign_status
from agentmetrology.store.store import LEDGER_FILE
from agentmetrology.store.transcripts import resolve


class StoreReader:
    """Read-only queries over one store's ledger and blobs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ledger = root / LEDGER_FILE
        self._choices: tuple[tuple[int, ...], dict[str, list[Any]]] | None = None
        # Answers kept per question until the ledger's state signature changes.
        self._memo: dict[tuple[str, ...], tuple[tuple[int, ...], Any]] = {}

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
            raise StoreError(f"cannot open the ledger {self.ledger} read-only: {exc}") from exc
        with closing(conn):
            try:
                conn.execute("PRAGMA query_only = ON")  # belt and braces: nothing may write
                yield conn
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"cannot read the ledger {self.ledger}: {exc}") from exc

    def check(self) -> None:
        """Raise StoreError (one line) unless the ledger reads and has a known schema."""
        with self.connect() as c:
            row = c.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            c.execute("SELECT COUNT(*) FROM campaigns").fetchone()
        if row is None or row[0] != SCHEMA_VERSION:
            found = "no schema" if row is None else f"schema {row[0]}"
            raise StoreError(f"the ledger {self.ledger} has {found}; this version reads "
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
        Kept until the ledger changes, also across viewer runs (store.overview_memo).
        """
        return list(self._kept(("summaries",),
                               lambda: kept_summaries(self.root, self._summaries)))

    def _summaries(self) -> list[dict[str, Any]]:
        with self.connect() as c:
            rows = {r[0]: {"campaign": r[0], "registration_id": r[1], "planned": 0, "done": 0,
                           "submitted": 0, "failed_agent": 0, "failed_infra": 0, "errored": 0,
                           "not_launched": 0, "cost": 0.0, "cost_unknown": 0}
                    for r in c.execute("SELECT name, registration_id FROM campaigns "
                                       "ORDER BY created_at")}
            for name, planned, done, sub, agent, infra, cost, unknown in c.execute(SUMMARY):
                rows[name].update(planned=planned, done=done, submitted=sub, failed_agent=agent,
                                  failed_infra=infra, cost=float(cost), cost_unknown=unknown)
            for query, field in ((SUMMARY_NOT_LAUNCHED, "not_launched"),
                                 (SUMMARY_ERRORED, "errored")):
                for name, n in rows_if_any(c, query):
                    rows[name][field] = n
            for query in (SUMMARY_SUPERSEDED, SUMMARY_UNRECORDED):
                for name, cost, unknown in rows_if_any(c, query):
                    rows[name]["cost"] += float(cost)
                    rows[name]["cost_unknown"] += unknown
        for r in rows.values():
            r["remaining"] = r["planned"] - r["done"]
            r["complete"] = r["remaining"] == 0
        return list(rows.values())

    def grid(self, campaign: str) -> list[dict[str, Any]]:
        """Return progress and per-scorer scores per target × level × condition."""
        with self.connect() as c:
            return campaign_grid(c, campaign)

    def overview(self, campaign: str) -> CampaignOverview | None:
        """Return one campaign's totals and grid (None if no such campaign), kept until the
        ledger changes: on a large store each walks the whole campaign."""
        return self._kept(("overview", campaign), lambda: self._overview(campaign))

    def _overview(self, campaign: str) -> CampaignOverview | None:
        def compute() -> CampaignOverview | None:
            with self.connect() as c:
                return campaign_overview(c, campaign)
        return kept_overview(self.root, campaign, compute)

    def _kept(self, key: tuple[str, ...], compute: Callable[[], Any]) -> Any:
        """Return compute()'s answer, reused while the ledger's state signature is unchanged."""
        state = self.state()
        hit = self._memo.get(key)
        if hit is not None and hit[0] == state:
            return hit[1]
        value = compute()
        self._memo[key] = (state, value)
        return value

    # -- episodes -----------------------------------------------------------------------------

    def episodes(self, f: EpisodeFilter, limit: int, offset: int
                 ) -> tuple[list[dict[str, Any]], int]:
        """Return one page of administrations (with episode summary and scores) and the total.

        A filter on the administration alone (key fields, verdict) counts and pages the
        administrations without joining their episodes: an administration has at most one
        episode, so the LEFT JOIN changes neither, and on a million administrations the join
        was most of a page. The total is kept while the ledger is unchanged.
        """
        where, values = f.where()
        join = " LEFT JOIN episodes e ON e.administration = a.id" if f.status else ""
        with self.connect() as c:
            total = self._kept(("episodes-total", repr(f)), lambda: int(c.execute(
                f"SELECT COUNT(*) FROM administrations a{join}{where}", values).fetchone()[0]))
            if join:
                page = f"{where} ORDER BY a.id LIMIT ? OFFSET ?", [*values, limit, offset]
            else:  # the page's ids first, through the administrations alone
                ids = [r[0] for r in c.execute(
                    f"SELECT a.id FROM administrations a{where} ORDER BY a.id LIMIT ? OFFSET ?",
                    [*values, limit, offset])]
                page = " WHERE a.id IN (SELECT value FROM json_each(?)) ORDER BY a.id", [
                    json.dumps(ids)]
            cur = c.execute(
                "SELECT a.id, a.campaign, a.target, a.task, a.seed, a.condition, a.level, "
                "a.repeat, a.not_launched, e.termination, e.termination_detail, "
                "e.measurement_failure, e.cost, e.input_tokens, e.output_tokens, "
                "e.administration IS NOT NULL AS recorded, "
                "(SELECT COUNT(*) FROM attempts t WHERE t.administration = a.id) AS attempts "
                "FROM administrations a LEFT JOIN episodes e ON e.administration = a.id"
                + page[0], page[1])
            cols = [d[0] for d in cur.description]
            rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
            _attach_scores(c, rows)
        return rows, total

    def choices(self) -> dict[str, list[Any]]:
        """Return the distinct values of each filterable key field (for the filter form).

        Kept until the ledger changes: they change only when a campaign is registered.
        """
        state = self.state()
        if self._choices is not None and self._choices[0] == state:
            return self._choices[1]
        out: dict[str, list[Any]] = {}
        with self.connect() as c:  # by index seeks, not a read of every row
            for name in ("campaign", "target", "task", "level", "condition", "scorer"):
                out[name] = distinct_values(c, name)
        self._choices = (state, out)
        return out

    def episode(self, key: EpisodeKey) -> dict[str, Any] | None:
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

    # -- graders ------------------------------------------------------------------------------

    def grader_runs(self) -> list[dict[str, Any]]:
        """Return every grader run whose verdicts the store keeps (store.grader_verdicts)."""
        with self.connect() as c:
            return verdict_runs(c)

    def grader_run(self, run: str) -> tuple[list[dict[str, Any]], dict[str, EpisodeKey]]:
        """Return one grader run's verdicts and the key of each episode they name (by its
        text, as the verdicts record it; a text no administration has is left out)."""
        with self.connect() as c:
            verdicts = run_verdicts(c, run)
            keys: dict[str, EpisodeKey] = {}
            ledger = LedgerReader(c, self.root)
            for campaign in {str(v["subject"]).split("/", 1)[0] for v in verdicts}:
                keys.update((key_text(k), k) for k in ledger.administration_keys(campaign))
        return verdicts, keys

    # -- blobs --------------------------------------------------------------------------------

    def blob(self, digest: str) -> bytes:
        """Return a blob's bytes after checking they hash to `digest` (StoreError if not)."""
        try:
            path = blob_path(self.root, digest)
        except StorePathError as exc:
            raise StoreError(str(exc)) from exc
        try:
            return read_blob_file(path, digest)  # inflated when compressed, then checked
        except OSError as exc:
            raise StoreError(f"blob {digest} cannot be read: {exc}") from exc
        except BlobCorruptError as exc:
            raise StoreError(f"blob {digest} is corrupt: its bytes no longer hash to its "
                             f"digest ({exc})") from exc

    def blob_json(self, digest: str) -> Any:
        """Return a JSON blob decoded (non-finite floats restored as the store tags them)."""
        return decode_json(self.blob(digest))

    def transcript(self, digest: str) -> dict[str, Any]:
        """Return a transcript document with its messages and tools read from their blobs
        (StoreError when one is missing, corrupt or not a transcript)."""
        try:
            return resolve(self.blob_json(digest), self.blob_json)
        except ValueError as exc:
            raise StoreError(f"transcript {digest[:12]} cannot be read: {exc}") from exc


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

