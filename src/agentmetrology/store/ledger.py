"""The ledger: campaigns, sealed administrations, attempts, episodes and assessments in SQLite."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agentmetrology.records.episode import BillableAttempt, EpisodeKey
from agentmetrology.store.chain import (
    CHAIN_META,
    CHAIN_SCHEMA,
    MIGRATED_META,
    is_sealed,
    seal,
    seal_all,
    seal_rows,
)
from agentmetrology.store.evidence import EpisodeEvidence
from agentmetrology.store.head_log import HeadLog, was_chained
from agentmetrology.store.ledger_records import ADM_COLUMNS as _ADM_COLUMNS
from agentmetrology.store.ledger_records import (  # the ledger's records, imported from here too
    KEY_COLUMNS,
    Administration,
    CampaignMismatchError,
    DuplicateEpisodeError,
    LedgerError,
    RecordedDigests,
    Sealing,
    billed_row,
    binding_environment,
    check_attempt,
    episode_row,
    key_text,
    missing_objects,
    now,
    row_dicts,
)
from agentmetrology.store.ledger_records import administration_of as _administration
from agentmetrology.store.ledger_records import key_values as _key_values
from agentmetrology.store.schema import (
    SCHEMA,
    SCHEMA_VERSION,
    SERVED_EPISODE_SQL,
    TOKENS_UNKNOWN_SQL,
    WRITER_INDEXES,
)
from agentmetrology.store.supersede import supersede_measurement_failures, superseded_episodes

__all__ = ["KEY_COLUMNS", "Administration", "CampaignMismatchError",
           "DuplicateEpisodeError", "Ledger", "LedgerError", "RecordedDigests", "Sealing",
           "binding_environment", "key_text", "missing_objects", "now"]


class Ledger:
    """One SQLite file in WAL mode; every multi-row change is one transaction."""

    def __init__(self, path: Path, *, readonly: bool = False, fsync: bool = False) -> None:
        self.path, self.fsync = path, fsync
        self.heads: HeadLog | None = None  # a writer's head log (store.head_log)
        # A reader still adds missing tables of the current schema (idempotent, one
        # transaction) so that an older store can be read; the store refuses its other writes.
        self.readonly = readonly
        # Autocommit mode: transactions are explicit (BEGIN IMMEDIATE) so they are never implicit.
        self.conn = sqlite3.connect(path, isolation_level=None, timeout=30.0)
        self.conn.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode is durable against a killed process; only power loss can lose the
        # last transactions, never corrupt the file.
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        indexes = [] if readonly else WRITER_INDEXES.split(";")
        statements = [s for s in [*SCHEMA.split(";"), CHAIN_SCHEMA, *indexes] if s.strip()]
        if readonly and not missing_objects(self.conn, statements):
            # A current ledger is read as it is: no write transaction, so a reader neither
            # waits for a writer nor changes the file (and its stat-keyed memos stay valid).
            self._check_schema(self.conn.execute(
                "SELECT value FROM meta WHERE key='schema'").fetchone())
            self.sealed = is_sealed(self.conn)
            return
        with self.transaction():
            for stmt in statements:
                self.conn.execute(stmt)
            row = self.conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None and not readonly:  # a reader never makes a ledger of an empty file
                self.conn.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
                # A new ledger is sealed from its first row; an older one stays unsealed until
                # `agm evidence seal` migrates it (never silently, see store.qualify).
                self.conn.execute("INSERT INTO meta VALUES (?, '1')", (CHAIN_META,))
            else:
                self._check_schema(row)
            if not readonly and is_sealed(self.conn):
                self.heads = HeadLog.open(self.conn, path, fsync)
        self.sealed = is_sealed(self.conn)

    def _check_schema(self, row: tuple[Any, ...] | None) -> None:
        """Refuse a ledger written by another schema version (or with no version at all)."""
        if row is None or row[0] != SCHEMA_VERSION:
            found = f"schema {row[0]}" if row else "no schema version (an empty or foreign file)"
            raise LedgerError(f"ledger {self.path} has {found}; this version reads "
                              f"schema {SCHEMA_VERSION}")

    def _seal(self, c: sqlite3.Connection, table: str, refs: Iterable[object]) -> None:
        """Chain the rows just changed (in the caller's transaction) when the ledger is sealed."""
        if self.sealed:
            seal(c, table, refs)

    def seal_existing(self) -> int:
        """Seal an older (unsealed) ledger as it is now; return the rows sealed (0 if sealed).

        One transaction: the chain covers every row or none, and the ledger records when it was
        migrated (rows before then were sealed as found, not as appended).
        """
        with self.transaction() as c:
            if is_sealed(c):
                return 0
            if was_chained(c, self.path):
                # Sealing would seal whatever the ledger holds now as found: a forger who
                # removed the chain marker would get a clean chain over the forged rows.
                raise LedgerError(
                    f"{self.path.parent}: the ledger kept a hash chain (its chain entries, its "
                    "head log or its head log row remain) but its chain marker is gone; it is "
                    "not sealed again: run `agm evidence verify` on it and rebuild the store "
                    "from its sources if it does not qualify")
            n = seal_all(c)
            c.execute("INSERT INTO meta VALUES (?, '1')", (CHAIN_META,))
            c.execute("INSERT INTO meta VALUES (?, ?)", (MIGRATED_META, now()))
            if not self.readonly:
                self.heads = HeadLog.open(c, self.path, self.fsync)
        self.sealed = True
        return n

    def close(self) -> None:
        """Close the connection and the head log (a writer first empties the write-ahead log)."""
        if self.heads is not None:
            self.heads.close()
        if not self.readonly:
            # Into the ledger file, and the log truncated to nothing: SQLite only does that on
            # the last connection's close, and a reader open elsewhere (a viewer) leaves the log
            # full. A full log is in the stat-keyed memos (store.verify_memo), and SQLite run
            # as root re-owns it at every open, which moves its ctime: every status would miss
            # and check the whole ledger again. Busy (a reader mid-read): left as it is, at
            # once: a check reads one snapshot for as long as it runs (store.verify), and the
            # 30 s busy wait made every writer that closed meanwhile stall.
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("PRAGMA busy_timeout=100")
                self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run the block in one IMMEDIATE transaction: all of it is written or none."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")
        if self.heads is not None:  # after the commit: the log never names an uncommitted head
            self.heads.after_commit(self.conn)

    # -- campaigns and plans ------------------------------------------------------------------

    def campaign(self, name: str) -> dict[str, Any] | None:
        """Return a campaign's row as a dict, or None."""
        cur = self.conn.execute("SELECT * FROM campaigns WHERE name=?", (name,))
        row = cur.fetchone()
        return None if row is None else dict(zip([d[0] for d in cur.description], row,
                                                 strict=True))

    def campaign_names(self) -> list[str]:
        """Return every campaign name, oldest first."""
        return [r[0] for r in self.conn.execute("SELECT name FROM campaigns ORDER BY created_at")]

    def registered(self, name: str, plan_digest: str,
                   scorer_versions: Iterable[dict[str, str]] = ()) -> str | None:
        """Return the registration id of this campaign's plan, None if the name is new.

        The same name with a different plan is refused, because its keys would mean
        something else; where the plan's `scorer_versions` differ from the sealed ones (an
        upgrade changed a scorer), the refusal names them.
        """
        existing = self.campaign(name)
        if existing is None:
            return None
        if existing["plan_digest"] != plan_digest:
            raise CampaignMismatchError(
                f"campaign {name!r} is already in this store with a different plan "
                f"(sealed {existing['plan_digest'][:12]}, now {plan_digest[:12]})"
                + self._version_changes(name, scorer_versions)
                + "; use a new campaign name or another store")
        return str(existing["registration_id"])

    def _version_changes(self, name: str, planned: Iterable[dict[str, str]]) -> str:
        """Return ': scorer X was A, is now B' for each scorer whose versions differ between the
        campaign's sealed administrations and the plan (empty when none do)."""
        def versions(docs: Iterable[dict[str, str]]) -> dict[str, set[str]]:
            out: dict[str, set[str]] = {}
            for doc in docs:
                for scorer, version in doc.items():
                    out.setdefault(scorer, set()).add(version)
            return out

        now = versions(planned)
        if not now:
            return ""
        sealed = versions(json.loads(text) for (text,) in self.conn.execute(
            "SELECT DISTINCT scorer_versions FROM administrations WHERE campaign=?", (name,)))
        changed = [f"scorer {s} was {'/'.join(sorted(sealed.get(s, ()))) or 'absent'}, is now "
                   f"{'/'.join(sorted(now.get(s, ()))) or 'absent'}"
                   for s in sorted(set(sealed) | set(now)) if sealed.get(s) != now.get(s)]
        return (": " + "; ".join(changed) + " (its recorded scores stay as they were scored; "
                "`agm archive regrade` re-scores them with the current scorers)") if changed else ""

    def register_campaign(self, name: str, registration_id: str, plan_digest: str,
                          config_digest: str, source_digest: str | None,
                          sealings: list[Sealing]) -> str:
        """Register a campaign and seal its plan; return its registration id.

        Registering the same plan again is a no-op (that is how a resumed run starts); the same
        name with a different plan is refused, because its keys would mean something else.
        """
        with self.transaction() as c:
            existing = self.registered(name, plan_digest, (s.scorer_versions for s in sealings))
            if existing is not None:
                return existing
            c.execute("INSERT INTO campaigns VALUES (?, ?, ?, ?, ?, ?, ?)",
                      (name, registration_id, plan_digest, config_digest, source_digest,
                       len(sealings), now()))
            self._seal(c, "campaigns", [name])
            sealed_at = now()
            c.executemany(
                "INSERT INTO administrations (campaign, target, task, seed, condition, level, "
                "repeat, ordinal, task_spec_digest, target_config_digest, scorer_versions, "
                "registration_id, binding, binding_digest, sealed_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(*_key_values(s.key), s.ordinal, s.task_spec_digest, s.target_config_digest,
                  json.dumps(s.scorer_versions, sort_keys=True), registration_id, s.binding,
                  s.binding_digest, sealed_at) for s in sealings])
            if self.sealed:
                self._seal(c, "administrations", [r[0] for r in c.execute(
                    "SELECT id FROM administrations WHERE campaign=? ORDER BY ordinal", (name,))])
            return registration_id

    def begin_run(self, campaign: str, backend: str) -> int:
        """Record the start of a `campaign run` and return its id."""
        with self.transaction() as c:
            cur = c.execute("INSERT INTO runs (campaign, backend, pid, host, started_at) "
                            "VALUES (?, ?, ?, ?, ?)",
                            (campaign, backend, os.getpid(), socket.gethostname(), now()))
            run_id = int(cur.lastrowid or 0)
            self._seal(c, "runs", [run_id])
            return run_id

    def end_run(self, run_id: int, outcome: str) -> None:
        """Record how a run ended."""
        with self.transaction() as c:
            c.execute("UPDATE runs SET ended_at=?, outcome=? WHERE id=?", (now(), outcome, run_id))
            self._seal(c, "runs", [run_id])

    def interrupt_started(self, detail: str) -> int:
        """Mark every attempt still `started` as `interrupted`; return how many.

        Only call this while holding the store's run lock: then no attempt can be running.
        """
        with self.transaction() as c:
            ids = [r[0] for r in c.execute("SELECT id FROM attempts WHERE status='started' "
                                           "ORDER BY id")]
            cur = c.execute("UPDATE attempts SET status='interrupted', ended_at=?, detail=? "
                            "WHERE status='started'", (now(), detail))
            self._seal(c, "attempts", ids)
            return cur.rowcount

    def pending(self, campaign: str) -> list[Administration]:
        """Return the administrations of a campaign without an episode, in plan order."""
        cur = self.conn.execute(
            f"SELECT a.id, {_ADM_COLUMNS}, a.ordinal, a.binding_digest, a.scorer_versions, "
            "a.not_launched FROM administrations a "
            "LEFT JOIN episodes e ON e.administration = a.id "
            "WHERE a.campaign=? AND e.administration IS NULL ORDER BY a.ordinal", (campaign,))
        return [_administration(r) for r in cur]

    def administration(self, key: EpisodeKey) -> Administration | None:
        """Return the administration of a key, or None."""
        cur = self.conn.execute(
            f"SELECT a.id, {_ADM_COLUMNS}, a.ordinal, a.binding_digest, a.scorer_versions, "
            "a.not_launched FROM administrations a WHERE " +
            " AND ".join(f"a.{c}=?" for c in KEY_COLUMNS), _key_values(key))
        row = cur.fetchone()
        return None if row is None else _administration(row)

    def set_not_launched(self, ids: Iterable[int], reason: str) -> None:
        """Record why these administrations were not launched (cleared when they are)."""
        with self.transaction() as c:
            c.executemany("UPDATE administrations SET not_launched=? WHERE id=?",
                          [(reason, i) for i in ids])

    # -- attempts and episodes ----------------------------------------------------------------

    def start_attempts(self, administrations: list[int], run_id: int | None, backend: str,
                       worker: str | None = None) -> list[int]:
        """Record that administrations are being attempted (one transaction); return the ids."""
        ids: list[int] = []
        with self.transaction() as c:
            started = now()
            for adm in administrations:
                cur = c.execute("INSERT INTO attempts (administration, run, status, backend, "
                                "worker, started_at) VALUES (?, ?, 'started', ?, ?, ?)",
                                (adm, run_id, backend, worker, started))
                ids.append(int(cur.lastrowid or 0))
            c.executemany("UPDATE administrations SET not_launched=NULL WHERE id=?",
                          [(a,) for a in administrations])
            self._seal(c, "attempts", ids)
        return ids

    def fail_attempt(self, attempt_id: int, detail: str, worker: str | None = None) -> None:
        """Mark a started attempt as failed (an execution error outside the agent); a given
        `worker` replaces the one recorded at its start."""
        with self.transaction() as c:
            cur = c.execute("UPDATE attempts SET status='failed', ended_at=?, detail=?, "
                            "worker=COALESCE(?, worker) WHERE id=? AND status='started'",
                            (now(), detail, worker, attempt_id))
            if cur.rowcount:
                self._seal(c, "attempts", [attempt_id])

    def record_billable(self, attempt_id: int, attempt: BillableAttempt) -> bool:
        """Record one provider request of a store attempt; return False if already recorded.

        Allowed whatever the attempt's status: money spent is a fact even for one that stopped.
        """
        return self._insert_billed("billable_attempts", {"attempt": attempt_id}, attempt)

    def record_grader_call(self, grader: str, purpose: str, subject: str,
                           attempt: BillableAttempt) -> bool:
        """Record one provider request of a grader (a judge); return False if already there."""
        return self._insert_billed(
            "grader_calls", {"grader": grader, "purpose": purpose, "subject": subject}, attempt)

    def _insert_billed(self, table: str, owner: dict[str, Any],
                       attempt: BillableAttempt) -> bool:
        """Insert one billed request under `owner`'s columns, once, sealed; return if new."""
        row = billed_row(owner, attempt)
        with self.transaction() as c:
            # `table` and the column names are this module's constants, never user input.
            cur = c.execute(f"INSERT OR IGNORE INTO {table} ({', '.join(row)}) VALUES "
                            f"({', '.join('?' * len(row))})", tuple(row.values()))
            if cur.rowcount == 1:
                self._seal(c, table, [int(cur.lastrowid or 0)])
            return cur.rowcount == 1

    def grader_calls(self) -> list[dict[str, Any]]:
        """Return every recorded grader request, in order."""
        return row_dicts(self.conn.execute("SELECT * FROM grader_calls ORDER BY id"))

    def billable_attempts(self, attempt_id: int) -> list[dict[str, Any]]:
        """Return the provider requests recorded for a store attempt, in order."""
        cur = self.conn.execute("SELECT * FROM billable_attempts WHERE attempt=? ORDER BY id",
                                (attempt_id,))
        return row_dicts(cur)

    def record_episode(self, attempt_id: int, ev: EpisodeEvidence,
                       digests: RecordedDigests, worker: str | None = None) -> None:
        """Record an episode and its assessments and finish its attempt, in one transaction
        (a given `worker`, where it ran, replaces the one recorded at its start)."""
        try:
            with self.transaction() as c:
                adm_id = check_attempt(c, attempt_id, ev)
                c.execute("INSERT INTO episodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                          (adm_id, attempt_id, digests.episode, digests.submission,
                           ev.termination, ev.termination_detail, int(ev.measurement_failure),
                           ev.cost, ev.input_tokens, ev.output_tokens, ev.requests,
                           ev.tool_calls, ev.model_attempts, now()))
                c.executemany(
                    "INSERT INTO assessments (administration, scorer, scorer_version, status, "
                    "score, evidence_digest, assessment, assessment_digest) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(adm_id, a.scorer, a.scorer_version, a.status, a.score, a.evidence_digest,
                      a.body.decode("utf-8"), d)
                     for a, d in zip(ev.assessments, digests.assessments, strict=True)])
                c.execute("UPDATE attempts SET status='finished', ended_at=?, "
                          "worker=COALESCE(?, worker) WHERE id=?", (now(), worker, attempt_id))
                if self.sealed:  # one batch: the hot path of every recorded episode
                    seal_rows(c, [("episodes", adm_id), *(("assessments", r[0]) for r in
                                  c.execute("SELECT id FROM assessments WHERE "
                                            "administration=? ORDER BY id", (adm_id,))),
                                  ("attempts", attempt_id)])
        except DuplicateEpisodeError as exc:
            self.fail_attempt(attempt_id, f"rejected: {exc}")
            raise
        except sqlite3.IntegrityError as exc:
            self.fail_attempt(attempt_id, f"rejected: {exc}")
            if "UNIQUE" not in str(exc):
                raise  # malformed evidence (a CHECK constraint): nothing was written
            # The UNIQUE constraint is the last line of defence (e.g. two writers racing).
            raise DuplicateEpisodeError(
                f"the ledger refused the episode of {key_text(ev.key)}: {exc}") from exc

    def attempts(self, key: EpisodeKey) -> list[dict[str, Any]]:
        """Return every attempt of a key, oldest first."""
        cur = self.conn.execute(
            "SELECT t.id, t.status, t.backend, t.worker, t.started_at, t.ended_at, t.detail, "
            "t.run FROM attempts t JOIN administrations a ON a.id = t.administration WHERE " +
            " AND ".join(f"a.{c}=?" for c in KEY_COLUMNS) + " ORDER BY t.id", _key_values(key))
        return row_dicts(cur)

    def episode(self, key: EpisodeKey) -> dict[str, Any] | None:
        """Return the episode row of a key (with its assessments), or None."""
        return episode_row(self.conn, key)

    def tokens_unknown(self, attempt_id: int) -> int:
        """Return how many provider requests of an attempt have an unknown input or output
        token count, plus 1 when its episode was served to an outside client (whose requests
        are never seen): its episode row sums the known ones, a lower bound when this is > 0."""
        return int(self.conn.execute(
            f"SELECT (SELECT COUNT(*) FROM billable_attempts b WHERE b.attempt = ? AND "
            f"{TOKENS_UNKNOWN_SQL}) + (SELECT COUNT(*) FROM episodes e WHERE e.attempt = ? AND "
            f"{SERVED_EPISODE_SQL})", (attempt_id, attempt_id)).fetchone()[0])

    def supersede_measurement_failures(self, campaign: str, run_id: int | None) -> int:
        """Re-open every measurement failure of a campaign (one transaction); return how many."""
        with self.transaction() as c:
            return supersede_measurement_failures(c, campaign, run_id, now(),
                                                  self._seal if self.sealed else None)

    def superseded(self, key: EpisodeKey) -> list[dict[str, Any]]:
        """Return the superseded episode rows of a key (with assessments), oldest first."""
        adm = self.administration(key)
        return [] if adm is None else superseded_episodes(self.conn, adm.id)

    def binding(self, key: EpisodeKey) -> tuple[str, str] | None:
        """Return (canonical JSON, digest) of the bindings sealed for a key, or None."""
        where = " AND ".join(f"{c}=?" for c in KEY_COLUMNS)
        row = self.conn.execute(f"SELECT binding, binding_digest FROM administrations WHERE "
                                f"{where}", _key_values(key)).fetchone()
        return None if row is None else (row[0], row[1])
