"""Verification of a store without re-execution: chain, rows, blobs and sealed bindings.

`verify_store` opens the ledger read-only (nothing in the store is changed) and checks:
- bytes (every mode): the chain's heads link; every row hashes to the digest its latest chain
  entry sealed (an edit in place, a row inserted outside the chain, a deleted row); binding and
  assessment texts hash to their digest columns; every referenced blob exists and (unless the
  cheap `ledger` mode) its bytes hash to its name;
- bindings (full and ledger modes, not hash-only): each administration's sealed binding agrees
  with its columns and its campaign (key, seed, task spec, target config, scorer versions,
  registration id); the plan digest recomputed from the sealed bindings equals the registered
  one; each episode blob belongs to its administration (key) and agrees with its row
  (submission digest, termination, cost, tokens, counts) and the transcript it binds is there,
  unchanged, with every message blob it names; each assessment's instrument (scorer
  name and version) is the sealed one and its text agrees with its columns; optionally the task
  specification re-opened from the installed environment (`reopen`) has the sealed digest.
The hash-only mode is the baseline: it accepts any rewrite that keeps bytes self-consistent.
Rows are streamed from SQLite (never fetched all at once); blob presence is read from one
listing of the blob directories instead of one stat per reference.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from agentmetrology.records.canonical import digest, from_plain
from agentmetrology.records.errors import UserError
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
from agentmetrology.store.ledger import KEY_COLUMNS
from agentmetrology.store.qualify import (
    INVALID,
    UNAVAILABLE,
    UNSEALED,
    Problem,
    Qualification,
    worst,
)
from agentmetrology.store.schema import DEFAULT_ENVIRONMENT
from agentmetrology.store.verify_blobs import BlobChecks
from agentmetrology.store.verify_episodes import EpisodeChecks, short_text
from agentmetrology.store.verify_heads import HeadWitness
from agentmetrology.store.verify_schema import page_problems, schema_problems
from agentmetrology.store.verify_transcripts import TranscriptChecks

LEDGER_FILE = "ledger.sqlite"
_BINDING_KEYS = {"key", "registration_id", "seed", "task_spec_digest", "target_config_digest",
                 "scorer_versions"}
# (environment, task, profile) -> the task specification digest now, or None if not installed
Reopen = Callable[[str, str, str], str | None]


class NotAStoreError(UserError):
    """Raised when a path is not an evidence store (no readable ledger)."""


def open_ledger_readonly(root: Path) -> sqlite3.Connection:
    """Return a read-only connection to a store's ledger (NotAStoreError when there is none)."""
    path = root / LEDGER_FILE
    if not path.is_file():
        raise NotAStoreError(f"{root} is not an evidence store (no {LEDGER_FILE})")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30.0)
        conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise NotAStoreError(f"{root}: {LEDGER_FILE} is not a readable ledger ({exc})") from exc
    return conn


def store_is_sealed(root: Path) -> bool:
    """Return True when the store's ledger keeps a hash chain, or shows it kept one.

    A ledger whose chain marker was removed but whose chain entries or head log remain is
    sealed (its verification names the removal); NotAStoreError if there is no store.
    """
    with closing(open_ledger_readonly(root)) as c:
        return is_sealed(c) or was_chained(c, root / LEDGER_FILE)


def store_head(root: Path) -> tuple[int, str]:
    """Return (length, head) of a store's chain as stored (NotAStoreError if none to read)."""
    with closing(open_ledger_readonly(root)) as c:
        try:
            return head(c)
        except sqlite3.DatabaseError as exc:
            raise NotAStoreError(f"{root}: its ledger has no readable hash chain ({exc}); "
                                 f"`agm evidence verify {root}` says why") from exc


def verify_store(root: str | Path, *, mode: str = "full", reopen: Reopen | None = None,
                 expect: tuple[int, str] | None = None) -> Qualification:
    """Return the qualification of the store at `root` (mode: full | hash-only | ledger).

    `expect` is a pinned (length, head): the chain must still have that head at that length.
    """
    root = Path(root)
    with closing(open_ledger_readonly(root)) as c:
        if not (is_sealed(c) or was_chained(c, root / LEDGER_FILE)):
            return Qualification(str(root), mode, UNSEALED, None, 0, notes=(
                "older layout: the ledger has no hash chain; `agm evidence seal STORE` seals "
                "it as it is now",))
        return _Verifier(root, c, mode, reopen, expect).run()


class _Verifier(BlobChecks, TranscriptChecks, EpisodeChecks):
    def __init__(self, root: Path, c: sqlite3.Connection, mode: str,
                 reopen: Reopen | None, expect: tuple[int, str] | None = None) -> None:
        self.root, self.c, self.mode, self.reopen = root, c, mode, reopen
        self.problems: list[Problem] = []
        self.checked: dict[str, int] = {}
        self.notes: list[str] = []
        self.blob_ok: dict[str, bool] = {}
        self._listing: tuple[set[str], set[str]] | None = None
        self.expected: dict[str, dict[str, str | None]] = {t: {} for t in TABLES}
        self.blob_base = str(root / "blobs")
        self.witness = HeadWitness(c, root, expect)

    def bad(self, kind: str, where: str, detail: str, result: str = INVALID) -> None:
        self.problems.append(Problem(kind, result, where, detail))

    def run(self) -> Qualification:
        length, head = 0, GENESIS
        try:
            self.structure()
            length, head = self.chain()
            self.heads(length)
            self.rows()
            self.texts()
            self.blobs()
            if self.mode != "hash-only":
                self.bindings()
                self.episodes()
        except sqlite3.DatabaseError as exc:  # pages too damaged for a query to finish
            self.bad("ledger_pages_corrupt", LEDGER_FILE, f"reading the ledger failed ({exc})")
        try:
            row = self.c.execute("SELECT value FROM meta WHERE key=?",
                                 (MIGRATED_META,)).fetchone()
        except sqlite3.DatabaseError:
            row = None
        if row is not None:
            self.notes.append(f"sealed by migration at {row[0]}: rows recorded before then "
                              "were sealed as found, not as appended")
        return Qualification(str(self.root), self.mode, worst(self.problems), head, length,
                             tuple(self.problems), self.checked, tuple(self.notes),
                             None if row is None else str(row[0]))

    # -- structure and bytes --------------------------------------------------------------------

    def structure(self) -> None:
        """Check SQLite's pages (not in the cheap mode) and the schema against the code's."""
        if self.mode != "ledger":
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
        h, last, n = GENESIS, GENESIS, 0
        broken: list[int] = []
        # The latest sealed digest of every row, per table (in chain order of first sealing),
        # gathered in the same pass for `rows` (one read of the chain, not two).
        expected = self.expected
        wanted, seen = self.witness.wanted, self.witness.seen  # the lengths the log names
        for seq, tbl, ref, d, stored in self.c.execute(
                "SELECT seq, tbl, ref, row_digest, head FROM chain ORDER BY seq"):
            h = next_head(h, tbl, ref, d)  # always from the recomputed head: one edit, one flag
            last = stored
            n += 1
            if seq in wanted:  # the head the entries give there (an edited head: chain_broken)
                seen[seq] = h
            if stored != h:
                broken.append(int(seq))
            per = expected.get(tbl)
            if per is None:
                per = expected[tbl] = {}
            per[ref] = d
        if broken:
            self.bad("chain_broken", f"chain entries {', '.join(map(str, broken[:10]))}"
                     + (f" and {len(broken) - 10} more" if len(broken) > 10 else ""),
                     f"{len(broken)} head(s) do not follow from the entries before them "
                     "(the chain was edited)")
        self.checked["chain_entries"] = n
        return n, last

    def rows(self) -> None:
        expected = self.expected  # filled by `chain`, which runs first
        n = 0
        for table, (ident, _) in TABLES.items():
            sealed_rows = expected[table]
            if not self.has_table(table):
                # an older store never opened by a writer since the table was added has no
                # sealed row of it; one that had rows lost them with the table
                self.deleted(table, ident, sealed_rows, set())
                continue
            cols = columns(self.c, table)
            seen = set()
            count = 0
            for row in self.c.execute(f"SELECT {ident}, {', '.join(cols)} FROM {table}"):
                n += 1
                count += 1
                ref = str(row[0])
                seen.add(ref)
                if ref not in sealed_rows:
                    self.bad("row_not_sealed", f"{table} {ident}={ref}", "the row is in no "
                             "chain entry (added outside the ledger's API)")
                    continue
                sealed = sealed_rows[ref]
                actual = content_digest(table, ref, dict(zip(cols, row[1:], strict=True)))
                if sealed is None:
                    self.bad("row_not_sealed", f"{table} {ident}={ref}",
                             "the chain records this row as removed")
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
        self.expected = {}  # a digest per chain entry: freed before the episodes are read

    def deleted(self, table: str, ident: str, sealed_rows: dict[str, str | None],
                seen: set[str]) -> None:
        """Name every row of `table` the chain seals and the ledger no longer has."""
        for ref, d in sealed_rows.items():
            if d is not None and ref not in seen:
                self.bad("row_deleted", f"{table} {ident}={ref}", "sealed but no longer in "
                         "the ledger", UNAVAILABLE)

    def texts(self) -> None:
        for adm, text, d in self.c.execute(
                "SELECT id, binding, binding_digest FROM administrations"):
            if hashlib.sha256(text.encode("utf-8")).hexdigest() != d:
                self.bad("binding_text_changed", f"administration {adm}",
                         "the sealed binding no longer hashes to binding_digest")
        for table in ("assessments", "superseded_assessments"):
            for aid, text, d in self.c.execute(
                    f"SELECT id, assessment, assessment_digest FROM {table}"):
                if hashlib.sha256(text.encode("utf-8")).hexdigest() != d:
                    self.bad("assessment_text_changed", f"{table} id={aid}",
                             "the assessment no longer hashes to assessment_digest")

    def has_table(self, table: str) -> bool:
        # A view under a table's name is read too (its rows are checked; the schema check
        # names the view itself).
        return self.c.execute("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') "
                              "AND name=?", (table,)).fetchone() is not None

    # -- bindings -------------------------------------------------------------------------------

    def bindings(self) -> None:
        regs = {n: (r, p, planned) for n, r, p, planned in self.c.execute(
            "SELECT name, registration_id, plan_digest, planned FROM campaigns")}
        plans: dict[str, list[dict[str, Any]]] = {n: [] for n in regs}
        cols = ", ".join(KEY_COLUMNS)
        n = 0
        tagged = False  # a binding text holding a tag-like key needs the full canonical walk
        for row in self.c.execute(
                f"SELECT id, {cols}, task_spec_digest, target_config_digest, scorer_versions, "
                "registration_id, binding FROM administrations ORDER BY campaign, ordinal"):
            n += 1
            adm, key = row[0], dict(zip(KEY_COLUMNS, row[1:8], strict=True))
            spec, target, versions_text, reg, text = row[8:13]
            where = f"administration {adm}"
            tagged = tagged or '"$' in text or "\\u00" in text  # "\u0024float" spells one too
            try:
                bound = json.loads(text)
                versions = json.loads(versions_text)
            except ValueError:
                self.bad("binding_unreadable", where, "the sealed binding is not JSON")
                continue
            if not isinstance(bound, dict) or not isinstance(versions, dict):
                self.bad("binding_unreadable", where, "the sealed binding is not a JSON object")
                continue
            self._sealed_fields(where, bound, key, (spec, target, versions, reg))
            campaign = regs.get(key["campaign"])
            if campaign is None:
                self.bad("registration_mismatch", where, f"campaign {key['campaign']!r} is "
                         "not registered")
                continue
            if reg != campaign[0]:
                self.bad("registration_mismatch", where, f"registration {reg[:12]} is not the "
                         f"campaign's ({campaign[0][:12]})")
            details = {k: v for k, v in bound.items() if k not in _BINDING_KEYS}
            plans[key["campaign"]].append(
                {"key": bound.get("key"), "task": bound.get("task_spec_digest"),
                 "target": bound.get("target_config_digest"),
                 "scorers": bound.get("scorer_versions"), "details": details})
            self.reopened(where, details, key["task"], bound.get("task_spec_digest"))
        self.checked["administrations"] = n
        self._plans(regs, plans, tagged)

    def _sealed_fields(self, where: str, bound: dict[str, Any], key: dict[str, Any],
                       ledger: tuple[Any, Any, Any, Any]) -> None:
        """Name every field whose sealed value differs from what the ledger says now."""
        spec, target, versions, reg = ledger
        checks = (("scope_mismatch", "key", bound.get("key"), key),
                  ("seed_mismatch", "seed", bound.get("seed"), key["seed"]),
                  ("specification_mismatch", "task_spec_digest",
                   bound.get("task_spec_digest"), spec),
                  ("target_mismatch", "target_config_digest",
                   bound.get("target_config_digest"), target),
                  ("instrument_mismatch", "scorer_versions", bound.get("scorer_versions"),
                   versions),
                  ("registration_mismatch", "registration_id", bound.get("registration_id"),
                   reg))
        for kind, name, sealed, now in checks:
            if sealed != now:
                self.bad(kind, where, f"sealed {name} {short_text(sealed)} but the ledger "
                         f"says {short_text(now)}")

    def _plans(self, regs: dict[str, tuple[Any, Any, Any]],
               plans: dict[str, list[dict[str, Any]]], tagged: bool) -> None:
        """Check each campaign's sealed bindings against its planned count and plan digest."""
        for name, (_, plan_digest, planned) in regs.items():
            rows = plans[name]
            if len(rows) != planned:
                self.bad("scope_mismatch", f"campaign {name}", f"{len(rows)} administrations "
                         f"sealed, {planned} planned")
            again = _plan_digest(name, rows, tagged)
            if again != plan_digest:
                self.bad("plan_mismatch", f"campaign {name}", f"the sealed bindings give plan "
                         f"{again[:12]}, the campaign was registered with {plan_digest[:12]}")

    def reopened(self, where: str, details: dict[str, Any], task: str, sealed: Any) -> None:
        if self.reopen is None:
            return
        env = str(details.get("environment") or DEFAULT_ENVIRONMENT)
        now = self.reopen(env, task, str(details.get("profile") or ""))
        self.checked["specifications_reopened"] = self.checked.get(
            "specifications_reopened", 0) + (now is not None)
        if now is not None and now != sealed:
            self.bad("specification_mismatch", where, f"task {task} of {env} now has "
                     f"specification {now[:12]}, sealed {short_text(sealed)}")

def _plan_digest(name: str, rows: list[dict[str, Any]], tagged: bool) -> str:
    """Return the digest of a campaign's sealed plan, as `records.canonical.digest` gives it.

    The rows are parsed from the sealed canonical texts, so a tag in them (a non-finite float,
    an escaped mapping) is decoded first: canonical JSON then encodes it exactly as registration
    did (encoding the tag itself would escape it again). Without a tag-like key canonical JSON
    is one `json.dumps`, byte-identical to the full walk (a test holds them equal).
    """
    doc = {"campaign": name, "bindings": rows}
    if tagged:
        return digest(from_plain(doc))
    try:
        text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    except ValueError:  # a bare NaN token a forger wrote: the walk tags it
        return digest(from_plain(doc))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
