"""What the chain may record for a row: the lifecycle the ledger's writers give each table.

A chain entry proves that a row had some content when it was appended, not that a writer
appended it. A forger who edits a row and appends one more entry with its new digest (and
one more line to the head log) leaves a chain that links, rows that hash to their latest
entries and a store that only grew since any head pinned before: every check of the bytes
passes, and a score, an assessment or a whole episode changes. The writers never do that, so
the order of a row's entries is evidence too:

- every table but `runs` and `attempts` is written once: a row's content is sealed when it is
  inserted and never again (`row_resealed`);
- a run and an attempt are sealed when they start and once more when they end (two contents at
  most, `row_resealed`);
- only an episode and its assessments are ever removed, by `--retry-measurement-failures`,
  which moves each to `superseded_episodes` / `superseded_assessments` in the same
  transaction: every removal of an episode has a history row of its administration, and there
  are as many removals of assessments as history rows of them (`row_removed`); and every
  history row was moved there by a removal: an episode's history row is sealed right after
  its episode's removal, as `supersede` writes them (`history_added` otherwise: a superseded
  failure added to an administration's record). The rows a migration sealed as found (`agm
  evidence seal`) follow no removal: they are the chain's first entries (`found_as`).
- a history row moved there by a removal is the episode removed: its episode columns hash to
  the digest the chain sealed for that episode before its removal (`history_changed`
  otherwise: an agent's recorded failure, no measurement failure, moved to history as one, its
  history row relabelled and pointed at a relabelled copy of its blob, left the scores).

The full check walks every entry in chain order (`Lifecycle.step`, one table at a time, as it
reads each table's sealed digests); an incremental one reads the whole history of each row the
appended entries touch (`ref_histories`, through the index `chain_by_ref`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator

from agentmetrology.store.chain import (
    MIGRATED_META,
    TABLES,
    columns,
    content_digest,
    head,
    row_digest,
)
from agentmetrology.store.head_log import HEAD_LOG_META
from agentmetrology.store.verify_scope import refs_param

ENDS_ONCE = frozenset({"runs", "attempts"})  # sealed at its start and once at its end
MOVED = frozenset({"episodes", "assessments"})  # removed only when moved to history

Finding = tuple[str, str, str]  # (kind, where, detail)
History = dict[tuple[str, str], list[tuple[int, str | None]]]


class Lifecycle:
    """The entries of the chain, one table at a time in chain order, held against its writers.

    `step(table, ref, digest, latest)` is given each entry and the digest sealed for the row
    before it (None when removed or never sealed); it keeps only what the rules need: the runs
    and attempts that already ended, and the removals of episodes and assessments.
    """

    def __init__(self) -> None:
        self.ended: set[str] = set()  # of the table being walked (runs, attempts)
        self.removed_episodes: dict[str, int] = {}  # administration -> removals
        self.removed_assessments = 0
        self.findings: list[Finding] = []

    def start(self) -> None:
        """Begin another table (what ended is per table)."""
        self.ended = set()

    def step(self, table: str, ref: str, d: str | None, latest: str | None) -> None:
        """Hold one entry against the table's lifecycle."""
        if d is None:
            if table not in MOVED or latest is None:
                self.findings.append((
                    "row_removed", _where(table, ref),
                    "the chain records a removal the ledger's writers never make (only "
                    "--retry-measurement-failures removes a row: an episode or its assessments"
                    ", moved to history)" if table not in MOVED else
                    "the chain records the removal of a row it had already removed"))
            elif table == "episodes":
                self.removed_episodes[ref] = self.removed_episodes.get(ref, 0) + 1
            else:
                self.removed_assessments += 1
            return
        if latest is None:  # inserted (or inserted again after a removal)
            return
        if table in ENDS_ONCE and ref not in self.ended:
            self.ended.add(ref)
            return
        self.findings.append((
            "row_resealed", _where(table, ref),
            "sealed again with another content (" + (
                "a run or an attempt is sealed when it starts and once when it ends"
                if table in ENDS_ONCE else "the ledger writes this row once and never "
                "changes it") + "): an edit appended to the chain"))

    def history_findings(self, c: sqlite3.Connection, episodes: Iterable[str] | None,
                         after: int) -> list[Finding]:
        """Return the removals no history row accounts for and the history rows no removal
        accounts for: each administration's episodes (`episodes`: those to check, None for
        every one), the assessments removed against their history rows first sealed after
        chain length `after` (a full check: 0), and every history row of an episode sealed
        after `after` that follows no removal of its episode."""
        out: list[Finding] = []
        moved = dict(_superseded_episodes(c, None if episodes is None else list(episodes)))
        for adm in sorted(set(self.removed_episodes) if episodes is None else set(episodes),
                          key=_order):
            removed, kept = self.removed_episodes.get(adm, 0), moved.get(adm, 0)
            if removed != kept:
                out.append(("row_removed", f"episodes administration={adm}",
                            f"the chain records {removed} removal(s) of its episode, but "
                            f"{kept} superseded episode(s) of it are in the history: an "
                            "episode was removed outside --retry-measurement-failures"))
        start = found_as(c, after)
        want = _moved_assessments(c, start)
        if self.removed_assessments != want:
            out.append(("row_removed", "assessments",
                        f"the chain records {self.removed_assessments} removal(s) of "
                        f"assessments, but {want} superseded assessment(s) were moved to the "
                        "history with them: an assessment was removed outside "
                        "--retry-measurement-failures"))
        return out + _unaccounted_history(c, after, start) + _changed_history(c, after)


def _where(table: str, ref: str) -> str:
    return f"{table} {TABLES[table][0]}={ref}"


def _order(ref: str) -> tuple[int, str]:
    return (int(ref), "") if ref.isdigit() else (-1, ref)


# A history row's chain entry follows its episode's removal entry directly: `supersede` seals
# the removals, then the history rows, in one transaction. Rows sealed as found by a migration
# (`seal_all`: every row of a table in turn) never follow a removal. Chain order, not the
# timestamps: `superseded_at` and the migration's time may come from two machines' clocks.
_AFTER_REMOVAL = ("EXISTS (SELECT 1 FROM chain h JOIN chain p ON p.seq = h.seq - 1 "
                  "WHERE h.tbl = 'superseded_episodes' AND h.ref = CAST(e.id AS TEXT) "
                  "AND p.tbl = 'episodes' AND p.ref = CAST(e.administration AS TEXT) "
                  "AND p.row_digest IS NULL)")


def _superseded_episodes(c: sqlite3.Connection,
                         adms: list[str] | None) -> Iterator[tuple[str, int]]:
    """Yield (administration, history rows moved there by a removal) for `adms` (or all)."""
    where = "" if adms is None else " AND e.administration IN (SELECT value FROM json_each(?))"
    params: tuple[str, ...] = () if adms is None else (refs_param(adms),)
    for adm, n in c.execute(f"SELECT e.administration, COUNT(*) FROM superseded_episodes e "
                            f"WHERE {_AFTER_REMOVAL}{where} GROUP BY e.administration", params):
        yield str(adm), int(n)


def _moved_assessments(c: sqlite3.Connection, after: int) -> int:
    """Return the history rows of assessments first sealed after chain length `after`."""
    return int(c.execute(
        "SELECT COUNT(*) FROM (SELECT ref FROM chain WHERE tbl = 'superseded_assessments' "
        "GROUP BY ref HAVING MIN(seq) > ?)", (after,)).fetchone()[0])


def _unaccounted_history(c: sqlite3.Connection, after: int, start: int) -> list[Finding]:
    """Return a `history_added` finding for each history row of an episode first sealed
    after `after` whose entry follows no removal of its episode (those a migration sealed
    as found, up to chain length `start`, aside)."""
    out: list[Finding] = []
    for seq, sid, adm in c.execute(
            "SELECT h.seq, e.id, e.administration FROM chain h JOIN superseded_episodes e "
            "ON e.id = CAST(h.ref AS INTEGER) WHERE h.tbl = 'superseded_episodes' "
            "AND h.seq > ? AND h.seq = (SELECT MIN(f.seq) FROM chain f "
            "WHERE f.tbl = h.tbl AND f.ref = h.ref) AND NOT EXISTS (SELECT 1 FROM chain p "
            "WHERE p.seq = h.seq - 1 AND p.tbl = 'episodes' AND p.row_digest IS NULL "
            "AND p.ref = CAST(e.administration AS TEXT)) ORDER BY h.seq", (after,)):
        if seq > start:
            out.append(("history_added", f"superseded_episodes id={sid}",
                        f"a superseded episode of administration {adm} that no removal of its "
                        "episode moved there (its chain entry follows none): added to the "
                        "history outside --retry-measurement-failures"))
    return out


def _changed_history(c: sqlite3.Connection, after: int) -> list[Finding]:
    """Return a `history_changed` finding for each history row of an episode first sealed
    after `after`, right after its episode's removal, whose episode columns do not hash to the
    digest the chain sealed for that episode before the removal, and for each of its history
    assessments that hashes to none of the assessments removed with it."""
    cols = columns(c, "episodes")
    out: list[Finding] = []
    # `cols` are the schema's own column names (PRAGMA table_info), never user input
    for row in list(c.execute(
            f"SELECT e.id, p.seq, {', '.join('e.' + k for k in cols)}, (SELECT b.row_digest "
            "FROM chain b WHERE b.tbl = 'episodes' AND b.ref = p.ref AND b.seq < p.seq ORDER BY "
            "b.seq DESC LIMIT 1) FROM chain h JOIN superseded_episodes e "
            "ON e.id = CAST(h.ref AS INTEGER) JOIN chain p ON p.seq = h.seq - 1 "
            "AND p.tbl = 'episodes' AND p.row_digest IS NULL "
            "AND p.ref = CAST(e.administration AS TEXT) WHERE h.tbl = 'superseded_episodes' "
            "AND h.seq > ? AND h.seq = (SELECT MIN(f.seq) FROM chain f WHERE f.tbl = h.tbl "
            "AND f.ref = h.ref) ORDER BY h.seq", (after,))):
        sid, removal, values, sealed = row[0], row[1], dict(zip(cols, row[2:-1],
                                                                 strict=True)), row[-1]
        adm = values["administration"]
        if not _as_sealed(c, "superseded_episodes", sid):
            continue  # edited in place since it was sealed: row_changed names it
        if sealed is not None and _digest("episodes", str(adm), values) != sealed:
            out.append(("history_changed", f"superseded_episodes id={sid}",
                        f"a superseded episode of administration {adm} that is not the "
                        "episode its removal removed (its columns do not hash to that "
                        "episode's sealed digest): an episode that was no measurement failure "
                        "moved to history outside --retry-measurement-failures"))
        out += _changed_assessments(c, sid, adm, removal)
    return out


def _digest(table: str, ref: str, values: dict[str, object]) -> str | None:
    """Return a row's content digest; None for a value no writer stores (a raw BLOB)."""
    try:
        return content_digest(table, ref, values)
    except (TypeError, ValueError, RecursionError):
        return None


def _as_sealed(c: sqlite3.Connection, table: str, ref: object) -> bool:
    """Return True when a row hashes to its latest chain entry (else it was edited in place)."""
    try:
        now = row_digest(c, table, ref)
    except (TypeError, ValueError, RecursionError):
        return False
    last = c.execute("SELECT row_digest FROM chain WHERE tbl = ? AND ref = ? ORDER BY seq DESC "
                     "LIMIT 1", (table, str(ref))).fetchone()
    return last is not None and now is not None and last[0] == now


def _removed_assessments(c: sqlite3.Connection, removal: int) -> list[tuple[str, str | None]]:
    """Return (id, digest sealed before its removal) of each assessment whose removal entry
    directly precedes an episode's removal at chain position `removal` (supersede seals the
    assessments' removals, then the episode's)."""
    out = []
    # walked back from the removal, a row at a time (the cursor stops at the first other entry)
    for seq, tbl, ref, d in c.execute("SELECT seq, tbl, ref, row_digest FROM chain "
                                      "WHERE seq < ? ORDER BY seq DESC", (removal,)):
        if tbl != "assessments" or d is not None:
            break
        last = c.execute("SELECT row_digest FROM chain WHERE tbl = 'assessments' AND ref = ? "
                         "AND seq < ? AND row_digest IS NOT NULL ORDER BY seq DESC LIMIT 1",
                         (ref, seq)).fetchone()
        out.append((str(ref), None if last is None else last[0]))
    return out


def _changed_assessments(c: sqlite3.Connection, sid: int, adm: object,
                         removal: int) -> list[Finding]:
    """Return a `history_changed` finding for each history assessment of superseded episode
    `sid` whose columns, under the id of an assessment removed with its episode, hash to none
    of those assessments' sealed digests (each removed assessment accounts for one)."""
    cols = columns(c, "assessments")
    removed = _removed_assessments(c, removal)
    left = [(ref, d) for ref, d in removed if d is not None]
    out: list[Finding] = []
    for row in c.execute(f"SELECT id, {', '.join(k for k in cols if k != 'id')} FROM "
                         "superseded_assessments WHERE superseded = ? ORDER BY id", (sid,)):
        if not _as_sealed(c, "superseded_assessments", row[0]):
            continue  # edited in place since it was sealed: row_changed names it
        kept = dict(zip([k for k in cols if k != "id"], row[1:], strict=True))
        match = next((i for i, (ref, d) in enumerate(left) if ref.isdigit() and _digest(
            "assessments", ref, {**kept, "id": int(ref)}) == d), None)
        if match is not None:
            del left[match]
        elif removed:  # none removed: the count of removals against history says so
            out.append(("history_changed", f"superseded_assessments id={row[0]}",
                        f"an assessment of the superseded episode id={sid} (administration "
                        f"{adm}) that is none of the assessments its removal removed (its "
                        "columns do not hash to any of their sealed digests): the history "
                        "changed outside --retry-measurement-failures"))
    return out


# A table's rank in `TABLES`, the order `seal_all` seals them in (-1: a table it never seals).
_RANK = "CASE {t}.tbl " + " ".join(
    f"WHEN '{t}' THEN {i}" for i, t in enumerate(TABLES)) + " ELSE -1 END"


def found_as(c: sqlite3.Connection, after: int) -> int:
    """Return the chain length up to which a migration sealed rows as found, or `after`
    when greater (a ledger sealed since it was created: `after`).

    `seal_all` seals every row, one table after another in `TABLES` order, before any writer
    appends: its entries are the chain's first ones, each with a digest and a table no
    earlier in that order than the one before it. The head log started right after them
    (`meta.head_log`; later in a ledger migrated before head logs existed): the lower bound.
    """
    if c.execute("SELECT 1 FROM meta WHERE key=?", (MIGRATED_META,)).fetchone() is None:
        return after
    row = c.execute("SELECT value FROM meta WHERE key=?", (HEAD_LOG_META,)).fetchone()
    log = int(row[0]) if row is not None and str(row[0]).isdigit() else None
    if log is not None and log <= after:
        return after  # an incremental check past the migration: nothing to read
    h, p = _RANK.format(t="h"), _RANK.format(t="p")
    first = c.execute(
        "SELECT h.seq FROM chain h LEFT JOIN chain p ON p.seq = h.seq - 1 WHERE h.seq > 0 "
        f"AND (h.row_digest IS NULL OR {h} < 0 OR {h} < {p}) ORDER BY h.seq LIMIT 1"
    ).fetchone()
    end = head(c)[0] if first is None else int(first[0]) - 1
    return max(after, end if log is None else min(end, log))


def ref_histories(c: sqlite3.Connection, touched: dict[str, dict[str, str | None]]) -> History:
    """Return every chain entry (seq, digest) of each row the appended entries touched, in
    chain order: one lookup per row through the index `chain_by_ref`."""
    out: History = {}
    for tbl, per in touched.items():
        if not per:
            continue
        for ref, seq, d in c.execute(
                "SELECT ref, seq, row_digest FROM chain WHERE tbl = ? AND ref IN "
                "(SELECT value FROM json_each(?)) ORDER BY seq", (tbl, refs_param(per))):
            out.setdefault((tbl, str(ref)), []).append((int(seq), d))
    return out


def appended_findings(c: sqlite3.Connection, histories: History, length: int) -> list[Finding]:
    """Return the lifecycle findings of the rows an incremental check re-checks: each row's
    whole history walked, the removals appended after `length` held against the history rows
    appended with them."""
    life = Lifecycle()
    removed_before = 0
    for (tbl, ref), entries in sorted(histories.items()):
        life.start()
        latest: str | None = None
        for seq, d in entries:
            life.step(tbl, ref, d, latest)
            latest = d
            if tbl == "assessments" and d is None and seq <= length:
                removed_before += 1  # counted above, but verified before
    life.removed_assessments -= removed_before
    episodes = [ref for (tbl, ref) in histories if tbl == "episodes"]
    return life.findings + life.history_findings(c, episodes, length)
