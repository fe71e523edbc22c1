"""Verification of a store without re-execution: chain, rows, blobs and sealed bindings.

`verify_store` opens the ledger read-only (nothing in the store is changed) and checks:
- bytes (every mode): the chain's heads link; every row hashes to the digest its latest chain
  entry sealed (an edit in place, a row inserted outside the chain, a deleted row); binding and
  assessment texts hash to their digest columns; every referenced blob exists and (unless the
  cheap `ledger` mode) its bytes hash to its name;
- bindings (full and ledger modes, not hash-only): each administration's sealed binding agrees
  with its columns and its campaign (key, seed, task spec, target config, scorer versions,
  registration id); the plan digest recomputed from the sealed bindings equals the registered
  one, and they are the whole grid the campaign's stored configuration names; each episode
  blob belongs to its administration (key) and agrees with its row (submission digest,
  termination, cost, tokens, counts) and the transcript it binds is there, unchanged, with
  every message blob it names; each assessment's instrument (scorer name and version) is the
  sealed one and its text agrees with its columns; optionally the task specification
  re-opened from the installed environment (`reopen`) has the sealed digest.
The hash-only mode is the baseline: it accepts any rewrite that keeps bytes self-consistent.
Rows are streamed from SQLite (never fetched all at once); blob presence is read from one
listing of the blob directories instead of one stat per reference.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from agentmetrology.store.blob_reads import BlobReads
from agentmetrology.store.chain import (
    CHAIN_META,
    GENESIS,
    MIGRATED_META,
    TABLES,
    columns,
    content_digest,
    head,
    is_sealed,
    next_head,
)
from agentmetrology.store.head_log import was_chained
from agentmetrology.store.ledger_open import (
    LEDGER_FILE,
    NotAStoreError,
    open_ledger_readonly,
)
from agentmetrology.store.qualify import (
    INVALID,
    UNAVAILABLE,
    UNSEALED,
    Problem,
    Qualification,
    worst,
)
from agentmetrology.store.verify_attempts import attempt_findings
from agentmetrology.store.verify_bindings import BindingChecks, Reopen
from agentmetrology.store.verify_blobs import BlobChecks
from agentmetrology.store.verify_cases import case_findings
from agentmetrology.store.verify_episodes import EpisodeChecks
from agentmetrology.store.verify_heads import HeadWitness
from agentmetrology.store.verify_lifecycle import Lifecycle, appended_findings, ref_histories
from agentmetrology.store.verify_plan import _plan_digest as _plan_digest  # tests hold it
from agentmetrology.store.verify_schema import page_problems, schema_problems
from agentmetrology.store.verify_scope import (
    Checkpoint,
    expected_counts,
    refs_param,
    row_counts,
    stored_head,
    stored_heads,
)
from agentmetrology.store.verify_split import PendingHalf, SplitChecks
from agentmetrology.store.verify_texts import TextChecks
from agentmetrology.store.verify_transcripts import TranscriptChecks
from agentmetrology.store.verify_values import undigestable

if TYPE_CHECKING:
    from agentmetrology.store.verify_ahead import LedgerHalf

def store_is_sealed(root: Path) -> bool:
    """Return True when the store's ledger keeps a hash chain, or shows it kept one.

    A ledger whose chain marker was removed but whose chain entries or head log remain is
    sealed (its verification names the removal); NotAStoreError if there is no store.
    """
    with closing(open_ledger_readonly(root)) as c:
        return is_sealed(c) or was_chained(c, root / LEDGER_FILE)


def require_sealed(root: Path) -> None:
    """NotAStoreError unless `root` is a sealed store (an older, unsealed layout cannot be
    qualified: the message says how to seal it; nothing is changed)."""
    if not store_is_sealed(root):
        raise NotAStoreError(
            f"{root}: unsealed ledger (older layout): it has no hash chain, so it cannot be "
            f"qualified; run `agm evidence seal {root}` to seal it as it is now (nothing was "
            "changed)")


def store_head(root: Path) -> tuple[int, str]:
    """Return (length, head) of a store's chain as stored (NotAStoreError if none to read)."""
    with closing(open_ledger_readonly(root)) as c:
        try:
            return head(c)
        except sqlite3.DatabaseError as exc:
            raise NotAStoreError(f"{root}: its ledger has no readable hash chain ({exc}); "
                                 f"`agm evidence verify {root}` says why") from exc


def verify_store(root: str | Path, *, mode: str = "full", reopen: Reopen | None = None,
                 expect: tuple[int, str] | None = None,
                 since: Checkpoint | None = None,
                 reads: BlobReads | None = None,
                 ledger: LedgerHalf | None = None,
                 ahead: PendingHalf | None = None,
                 verified: Checkpoint | None = None) -> Qualification:
    """Return the qualification of the store at `root` (mode: full | hash-only | ledger).

    `expect` is a pinned (length, head): the chain must still have that head at that length.
    `since` makes the check incremental from that verified head (store.verify_scope); when the
    chain no longer has it there, the check is full and says why. `verified`: the head this
    machine verified last, for a whole check to say when the chain no longer has it (a note:
    the store was rewritten, rolled back or replaced since). `reads`: what a reader found
    in the blobs it read in this process (store.blob_reads), used instead of reading them again.
    `ledger`: what the ledger steps (head log included), the binding checks and the episode
    checks' walk of the ledger found in a full check run meanwhile in another process
    (store.verify_ahead), taken in their place (never with `since`). `ahead`: the ledger half
    of this whole `full` or `ledger` check, running meanwhile in another process
    (store.verify_split; ignored for any other check).
    """
    root = Path(root)
    with closing(open_ledger_readonly(root)) as c:
        if not (is_sealed(c) or was_chained(c, root / LEDGER_FILE)):
            return Qualification(str(root), mode, UNSEALED, None, 0, notes=(
                "older layout: the ledger has no hash chain; `agm evidence seal STORE` seals "
                "it as it is now",))
        notes = []
        last = since if since is not None else verified
        try:
            moved = last is not None and stored_head(c, last.length) != last.head
        except sqlite3.DatabaseError:
            moved = True
        if last is not None and moved:
            notes.append(moved_note(last) + ("; checked in full, not incrementally"
                                             if since is not None else ""))
            since = None
        whole = since is None and expect is None
        ledger = ledger if whole and mode == "full" else None
        ahead = ahead if whole and mode in ("full", "ledger") and ledger is None else None
        # the head log is read by whichever process walks the chain (here: before it does)
        v = _Verifier(root, c, mode, reopen, expect, since, reads, ledger,
                      read_log_now=ledger is None and ahead is None)
        v.notes.extend(notes)
        v.ahead = ahead
        return v.run()


MOVED = "this machine verified the store at head "  # how moved_note begins


def moved_note(last: Checkpoint) -> str:
    """Return what a chain that no longer has the head this machine verified last means."""
    return (f"{MOVED}{last.length}:{last.head[:12]} and its "
            "chain no longer has that head there: the ledger was rewritten or rolled back "
            "since, or another store was put at this path; the store alone cannot tell which "
            "(a head kept outside it can: --expect-head)")


class _Verifier(BlobChecks, TextChecks, TranscriptChecks, EpisodeChecks, BindingChecks,
                SplitChecks):
    def __init__(self, root: Path, c: sqlite3.Connection, mode: str,
                 reopen: Reopen | None, expect: tuple[int, str] | None = None,
                 since: Checkpoint | None = None, reads: BlobReads | None = None,
                 ledger: LedgerHalf | None = None, read_log_now: bool = True) -> None:
        self.root, self.c, self.mode, self.reopen, self.since = root, c, mode, reopen, since
        self.reads, self.ledger = reads, ledger
        self.episodes_found = None if ledger is None else ledger.episodes
        self.ahead: PendingHalf | None = None
        self.at = 0, GENESIS  # the chain's length and head, once walked
        self.problems: list[Problem] = []
        self.checked: dict[str, int] = {}
        self.notes: list[str] = []
        self.blob_ok: dict[str, bool] = {}
        self.counts: dict[str, int] = {}
        self.kinds: dict[str, str | None] = {}  # incremental: blob digest -> file | link | None
        self._listing: tuple[set[str], set[str]] | None = None
        self.expected: dict[str, dict[str, str | None]] = {t: {} for t in TABLES}
        self.touched = self.expected  # incremental: the rows the appended entries name
        self.chained: set[str] = set()  # full: the tables the chain's entries name
        self.life = Lifecycle()  # full: each row's entries against its writers' lifecycle
        self.blob_base = str(root / "blobs")
        self._witness_of = expect, None if since is None else (since.log_size, since.log_digest)
        self._witness: HeadWitness | None = None
        if read_log_now:
            self._witness = HeadWitness(c, root, *self._witness_of)

    @property
    def witness(self) -> HeadWitness:
        """The head log as read at the start of this check (or before its chain walk)."""
        if self._witness is None:
            self._witness = HeadWitness(self.c, self.root, *self._witness_of)
        return self._witness

    def bad(self, kind: str, where: str, detail: str, result: str = INVALID) -> None:
        self.problems.append(Problem(kind, result, where, detail))

    def billed_since(self) -> dict[str, set[str]]:
        return EpisodeChecks.billed_since(self)  # BlobChecks declares it, abstract

    def only(self, table: str, column: str, join: str = "WHERE",
             extra: Iterable[str] = ()) -> tuple[str, tuple[str, ...]]:
        """Return the SQL condition (and its parameter) keeping the rows an incremental check
        re-checks: `column` names a row of `table` the appended entries touched, or one of
        `extra` ("" if full)."""
        if self.since is None:
            return "", ()
        return (f" {join} {column} IN (SELECT value FROM json_each(?))",
                (refs_param({*self.touched.get(table, {}), *extra}),))

    def run(self) -> Qualification:
        # the ledger half elsewhere meanwhile and the blob half here, or every step here
        log = ((self.split_steps(self.ahead) if self.ahead is not None else self.steps())
               or (self.witness.log.size, self.witness.log.digest))
        try:
            row = self.c.execute("SELECT value FROM meta WHERE key=?", (MIGRATED_META,)).fetchone()
        except sqlite3.DatabaseError:
            row = None
        if row is not None:
            self.notes.append(f"sealed by migration at {row[0]}: rows recorded before then "
                              "were sealed as found, not as appended")
        length, head = self.at
        return Qualification(str(self.root), self.mode, worst(self.problems), head, length,
                             tuple(self.problems), self.checked, tuple(self.notes),
                             None if row is None else str(row[0]),
                             None if self.since is None else self.since.text(),
                             None if self.problems else Checkpoint(
                                 length, head, self.counts, self.mode, *log))

    def ledger_steps(self, walked: Callable[[], None] | None = None) -> None:
        """Check the ledger's pages, schema, chain, head log, rows and sealed texts: all that
        reads no blob (`self.at`: the chain's length and head, once walked; `walked()` is
        called then)."""
        self.structure()
        self.at = self.chain()
        if walked is not None:
            walked()
        self.heads(self.at[0])
        self.rows()
        self.texts()

    def pages_failed(self, exc: sqlite3.DatabaseError) -> None:
        """Name the ledger's pages as too damaged for a query of the check to finish."""
        self.bad("ledger_pages_corrupt", LEDGER_FILE, f"reading the ledger failed ({exc})")

    # -- structure and bytes --------------------------------------------------------------------

    def structure(self) -> None:
        """Check SQLite's pages (not in the cheap mode) and the schema against the code's."""
        if self.mode != "ledger" and self.since is None:  # pages: the whole file, full only
            for where, detail in page_problems(self.c, quick=self.mode == "hash-only"):
                self.bad("ledger_pages_corrupt", where, detail)
        for where, detail in schema_problems(self.c):
            self.bad("schema_changed", where, detail)
        if not is_sealed(self.c):
            self.bad("schema_changed", f"meta {CHAIN_META}", "missing, but the ledger kept a "
                     "chain (its entries or its head log remain): the marker was removed")

    def heads(self, length: int) -> None:
        """Check the chain against its head log and the pinned head (rollbacks, rewrites)."""
        broken = any(p.kind == "chain_broken" for p in self.problems)
        problems, notes = self.witness.findings(length, broken)
        for kind, result, where, detail in problems:
            self.bad(kind, where, detail, result)
        self.notes.extend(notes)

    def chain(self) -> tuple[int, str]:
        h, last, n, start = GENESIS, GENESIS, 0, 0
        if self.since is not None:  # from the verified head: its heads as stored (checked then)
            h, last, start = self.since.head, self.since.head, self.since.length
            self.witness.seen.update(stored_heads(
                self.c, (x for x in self.witness.wanted if x <= start)))
        broken: list[int] = []
        # Incremental: the latest sealed digest of every row the appended entries name, per
        # table (in chain order of first sealing), gathered in the same pass (few). A full
        # check reads them one table at a time in `rows` instead: a digest per row of the
        # whole ledger held at once was most of the check's memory.
        expected = self.expected if self.since is not None else None
        wanted, seen = self.witness.wanted, self.witness.seen  # the lengths the log names
        chained = self.chained
        for seq, tbl, ref, d, stored in self.c.execute(
                "SELECT seq, tbl, ref, row_digest, head FROM chain WHERE seq > ? ORDER BY seq",
                (start,)):
            h = next_head(h, tbl, ref, d)  # always from the recomputed head: one edit, one flag
            last = stored
            n += 1
            if seq in wanted:  # the head the entries give there (an edited head: chain_broken)
                seen[seq] = h
            if stored != h:
                broken.append(int(seq))
            if expected is not None:
                per = expected.get(tbl)
                if per is None:
                    per = expected[tbl] = {}
                per[ref] = d
            else:
                chained.add(tbl)  # `sealed` reads only the tables the chain names
        if broken:
            self.bad("chain_broken", f"chain entries {', '.join(map(str, broken[:10]))}"
                     + (f" and {len(broken) - 10} more" if len(broken) > 10 else ""),
                     f"{len(broken)} head(s) do not follow from the entries before them "
                     "(the chain was edited)")
        for tbl in sorted((chained if expected is None else set(expected)) - TABLES.keys(),
                          key=str):
            self.bad("schema_changed", f"chain entries of table {tbl!r}", "the chain seals "
                     "rows of a table the ledger's code never creates")
        self.checked["chain_entries"] = n
        return start + n, last

    def rows(self) -> None:
        expected = self.expected  # incremental: filled by `chain`, which runs first
        n = 0
        for table, (ident, _) in TABLES.items():
            sealed_rows = expected[table] if self.since is not None else self.sealed(table)
            if self.since is not None and not sealed_rows:
                continue  # nothing appended to it: its count is checked below
            if not self.has_table(table):
                # an older store never opened by a writer since the table was added has no
                # sealed row of it; one that had rows lost them with the table
                self.deleted(table, ident, sealed_rows, set())
                continue
            cols = columns(self.c, table)
            seen = set()
            count = 0
            where, params = self.only(table, ident)
            for row in self.c.execute(f"SELECT {ident}, {', '.join(cols)} FROM {table}{where}",
                                      params):
                n += 1
                count += 1
                ref = str(row[0])
                seen.add(ref)
                if ref not in sealed_rows:
                    self.bad("row_not_sealed", f"{table} {ident}={ref}", "the row is in no "
                             "chain entry (added outside the ledger's API)")
                    continue
                sealed = sealed_rows[ref]
                try:
                    actual = content_digest(table, ref, dict(zip(cols, row[1:], strict=True)))
                except TypeError:  # a value no writer stores (a BLOB): no digest to compare
                    actual = None
                if sealed is None:
                    self.bad("row_not_sealed", f"{table} {ident}={ref}",
                             "the chain records this row as removed")
                elif actual is None:
                    self.bad("row_changed", f"{table} {ident}={ref}", undigestable(cols, row))
                elif actual != sealed:
                    self.bad("row_changed", f"{table} {ident}={ref}", "its content no longer "
                             f"hashes to the digest sealed for it ({sealed[:12]}): edited in "
                             "place")
            self.deleted(table, ident, sealed_rows, seen)
            if count != len(seen):  # a table's identity is unique: rows repeated by a view
                live = sum(d is not None for d in sealed_rows.values())
                self.bad("row_count_mismatch", table, f"{count} rows, but the chain seals "
                         f"{live}")
        self.checked["rows"] = n
        self.counts = row_counts(self.c, TABLES)  # for the checkpoint this check may leave
        if self.since is not None:
            self.row_counts(expected_counts(self.c, self.since, expected))
            found = appended_findings(self.c, ref_histories(self.c, expected), self.since.length)
        else:
            self.touched = {}
            found = self.life.findings + self.life.history_findings(self.c, None, 0)
        found += case_findings(self.c, None if self.since is None else expected)
        found += attempt_findings(self.c, None if self.since is None else expected)
        for kind, where, detail in found:
            self.bad(kind, where, detail)
        self.expected = {}  # a digest per chain entry: freed before the episodes are read

    def sealed(self, table: str) -> dict[str, str | None]:
        """Return the latest sealed digest of every row of `table` the chain names, in chain
        order of first sealing (a full check: the chain, read for this table alone)."""
        out: dict[str, str | None] = {}
        if table not in self.chained:
            return out  # no entry names it: no need to read the chain again
        # The entries `chain` walked (seq > 0), in its order, whatever index the ledger has.
        step = self.life.step
        self.life.start()
        for ref, d in self.c.execute("SELECT ref, row_digest FROM chain NOT INDEXED "
                                     "WHERE tbl=? AND seq > 0 ORDER BY seq", (table,)):
            step(table, ref, d, out.get(ref))
            out[ref] = d
        return out

    def row_counts(self, want: dict[str, int]) -> None:
        """Name every table whose row count is not what the verified head and the appended
        entries give (incremental: a row added or removed outside the ledger's API)."""
        assert self.since is not None
        for table, n in want.items():
            if self.counts[table] != n:
                self.bad("row_count_mismatch", table, f"{self.counts[table]} rows, but the "
                         f"head verified last ({self.since.length}) and the entries appended "
                         f"since give {n}: a row was added or removed outside the ledger's "
                         "API (the full check names it)")

    def deleted(self, table: str, ident: str, sealed_rows: dict[str, str | None],
                seen: set[str]) -> None:
        """Name every row of `table` the chain seals and the ledger no longer has."""
        for ref, d in sealed_rows.items():
            if d is not None and ref not in seen:
                self.bad("row_deleted", f"{table} {ident}={ref}", "sealed but no longer in "
                         "the ledger", UNAVAILABLE)

    def has_table(self, table: str) -> bool:
        # A view under a table's name is read too (its rows are checked; the schema check
        # names the view itself).
        return self.c.execute("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') "
                              "AND name=?", (table,)).fetchone() is not None
