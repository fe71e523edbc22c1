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
  (submission digest, termination, cost, tokens, counts); each assessment's instrument (scorer
  name and version) is the sealed one and its text agrees with its columns; optionally the task
  specification re-opened from the installed environment (`reopen`) has the sealed digest.
The hash-only mode is the baseline: it accepts any rewrite that keeps bytes self-consistent.
Rows are streamed from SQLite (never fetched all at once); blob presence is read from one
listing of the blob directories instead of one stat per reference.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from agentmetrology.records.canonical import decode_json, digest, to_plain
from agentmetrology.records.episode import MEASUREMENT_FAILURES
from agentmetrology.store.chain import (
    GENESIS,
    MIGRATED_META,
    TABLES,
    columns,
    content_digest,
    is_sealed,
    next_head,
)
from agentmetrology.store.qualify import (
    INVALID,
    UNAVAILABLE,
    UNSEALED,
    Problem,
    Qualification,
    worst,
)

LEDGER_FILE = "ledger.sqlite"
KEY_COLUMNS = ("campaign", "target", "task", "seed", "condition", "level", "repeat")
_BINDING_KEYS = {"key", "registration_id", "seed", "task_spec_digest", "target_config_digest",
                 "scorer_versions"}
# (environment, task, profile) -> the task specification digest now, or None if not installed
Reopen = Callable[[str, str, str], str | None]
_DIGEST = re.compile("[0-9a-f]{3,}")  # what store.paths accepts as a blob name


class NotAStoreError(Exception):
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
    """Return True when the store's ledger keeps a hash chain (NotAStoreError if no store)."""
    with closing(open_ledger_readonly(root)) as c:
        return is_sealed(c)


def verify_store(root: str | Path, *, mode: str = "full",
                 reopen: Reopen | None = None) -> Qualification:
    """Return the qualification of the store at `root` (mode: full | hash-only | ledger)."""
    root = Path(root)
    with closing(open_ledger_readonly(root)) as c:
        if not is_sealed(c):
            return Qualification(str(root), mode, UNSEALED, None, 0, notes=(
                "older layout: the ledger has no hash chain; `agm evidence seal STORE` seals "
                "it as it is now",))
        return _Verifier(root, c, mode, reopen).run()


class _Verifier:
    def __init__(self, root: Path, c: sqlite3.Connection, mode: str,
                 reopen: Reopen | None) -> None:
        self.root, self.c, self.mode, self.reopen = root, c, mode, reopen
        self.problems: list[Problem] = []
        self.checked: dict[str, int] = {}
        self.notes: list[str] = []
        self.blob_ok: dict[str, bool] = {}
        self._listing: set[str] | None = None

    def bad(self, kind: str, where: str, detail: str, result: str = INVALID) -> None:
        self.problems.append(Problem(kind, result, where, detail))

    def run(self) -> Qualification:
        length, head = self.chain()
        self.rows()
        self.texts()
        self.blobs()
        if self.mode != "hash-only":
            self.bindings()
            self.episodes()
        row = self.c.execute("SELECT value FROM meta WHERE key=?", (MIGRATED_META,)).fetchone()
        if row is not None:
            self.notes.append(f"sealed by migration at {row[0]}: rows recorded before then "
                              "were sealed as found, not as appended")
        return Qualification(str(self.root), self.mode, worst(self.problems), head, length,
                             tuple(self.problems), self.checked, tuple(self.notes),
                             None if row is None else str(row[0]))

    # -- bytes ----------------------------------------------------------------------------------

    def chain(self) -> tuple[int, str]:
        h, last, n = GENESIS, GENESIS, 0
        broken: list[int] = []
        for seq, tbl, ref, d, stored in self.c.execute(
                "SELECT seq, tbl, ref, row_digest, head FROM chain ORDER BY seq"):
            h = next_head(h, tbl, ref, d)  # always from the recomputed head: one edit, one flag
            last = stored
            n += 1
            if stored != h:
                broken.append(int(seq))
        if broken:
            self.bad("chain_broken", f"chain entries {', '.join(map(str, broken[:10]))}"
                     + (f" and {len(broken) - 10} more" if len(broken) > 10 else ""),
                     f"{len(broken)} head(s) do not follow from the entries before them "
                     "(the chain was edited)")
        self.checked["chain_entries"] = n
        return n, last

    def rows(self) -> None:
        # The latest sealed digest of every row, per table (in chain order of first sealing).
        expected: dict[str, dict[str, str | None]] = {t: {} for t in TABLES}
        for tbl, ref, d in self.c.execute("SELECT tbl, ref, row_digest FROM chain ORDER BY seq"):
            expected.setdefault(tbl, {})[ref] = d
        n = 0
        for table, (ident, _) in TABLES.items():
            cols = columns(self.c, table)
            sealed_rows = expected[table]
            seen = set()
            for row in self.c.execute(f"SELECT {ident}, {', '.join(cols)} FROM {table}"):
                n += 1
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
            for ref, d in sealed_rows.items():
                if d is not None and ref not in seen:
                    self.bad("row_deleted", f"{table} {ident}={ref}", "sealed but no longer in "
                             "the ledger", UNAVAILABLE)
        self.checked["rows"] = n

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

    def referenced(self) -> Iterator[tuple[str, str]]:
        for name, cfg, src in self.c.execute(
                "SELECT name, config_digest, source_digest FROM campaigns"):
            yield cfg, f"campaign {name} config"
            if src is not None:
                yield src, f"campaign {name} source"
        for table, ident in (("episodes", "administration"), ("superseded_episodes", "id")):
            for ref, ep, sub in self.c.execute(
                    f"SELECT {ident}, episode_digest, submission_digest FROM {table}"):
                yield ep, f"{table} {ident}={ref} episode"
                if sub is not None:
                    yield sub, f"{table} {ident}={ref} submission"

    def blobs(self) -> None:
        n = 0
        for d, where in self.referenced():
            n += 1
            if d in self.blob_ok:
                if not self.blob_ok[d]:
                    self.bad("blob_missing" if not self.present(d) else
                             "blob_changed", where, f"blob {d[:12]} (see above)",
                             UNAVAILABLE if not self.present(d) else INVALID)
                continue
            if not self.present(d):
                self.blob_ok[d] = False
                self.bad("blob_missing", where, f"blob {d} is not in the store", UNAVAILABLE)
                continue
            if self.mode == "ledger":
                self.blob_ok[d] = True
                continue
            actual = hashlib.sha256(self.blob_path(d).read_bytes()).hexdigest()
            self.blob_ok[d] = actual == d
            if actual != d:
                self.bad("blob_changed", where, f"blob {d[:12]}'s bytes now hash to "
                         f"{actual[:12]}")
        self.checked["blob_references"] = n
        self.checked["blobs_hashed"] = 0 if self.mode == "ledger" else len(self.blob_ok)

    def blob_path(self, d: str) -> Path:
        if not _DIGEST.fullmatch(d):
            return self.root / "blobs" / "invalid-digest"
        return self.root / "blobs" / d[:2] / d[2:]

    def present(self, d: str) -> bool:
        """Return True when the blob file of `d` exists (one directory listing, then a set)."""
        if self._listing is None:
            self._listing = _blob_names(self.root / "blobs")
        return _DIGEST.fullmatch(d) is not None and d in self._listing

    def blob_json(self, d: str) -> Any | None:
        if not self.blob_ok.get(d):
            return None
        try:
            return decode_json(self.blob_path(d).read_bytes())
        except (OSError, ValueError):
            return None

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
            tagged = tagged or '"$' in text
            try:
                bound = json.loads(text)
                versions = json.loads(versions_text)
            except ValueError:
                self.bad("binding_unreadable", where, "the sealed binding is not JSON")
                continue
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
                    self.bad(kind, where, f"sealed {name} {_short(sealed)} but the ledger "
                             f"says {_short(now)}")
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
        env = str(details.get("environment") or "comtrade")
        now = self.reopen(env, task, str(details.get("profile") or ""))
        self.checked["specifications_reopened"] = self.checked.get(
            "specifications_reopened", 0) + (now is not None)
        if now is not None and now != sealed:
            self.bad("specification_mismatch", where, f"task {task} of {env} now has "
                     f"specification {now[:12]}, sealed {_short(sealed)}")

    def episodes(self) -> None:
        cols = ", ".join(f"a.{k}" for k in KEY_COLUMNS)
        n = self.recorded_episodes(cols)  # one streamed query, not one per episode
        for table, ident in (("superseded_episodes", "id"),):
            for row in self.c.execute(
                    f"SELECT e.{ident}, a.id, a.scorer_versions, {cols}, e.episode_digest, "
                    "e.submission_digest, e.termination, e.measurement_failure, e.cost, "
                    "e.input_tokens, e.output_tokens, e.requests, e.tool_calls, "
                    f"e.model_attempts FROM {table} e "
                    "JOIN administrations a ON a.id = e.administration"):
                n += 1
                ref, adm, versions_text = row[0], row[1], row[2]
                key = dict(zip(KEY_COLUMNS, row[3:10], strict=True))
                self.episode(f"{table} {ident}={ref}", key, row[10:])
                self.assessments(table, ref, adm, json.loads(versions_text), row[11])
        self.checked["episodes"] = n

    def episode(self, where: str, key: dict[str, Any], row: tuple[Any, ...]) -> None:
        ep_digest, sub_digest, term, mfail, cost, tin, tout, requests, tools, attempts = row
        plain = self.blob_json(ep_digest)
        if not isinstance(plain, dict):
            return  # missing or changed: already a problem
        if plain.get("key") != key:
            self.bad("scope_mismatch", where, f"the episode blob {ep_digest[:12]} belongs to "
                     f"{_key_text(plain.get('key'))}, not to {_key_text(key)}")
            return
        recorded = (plain.get("digests") or {}).get("submission")
        if recorded is not None and sub_digest is not None and recorded != sub_digest:
            self.bad("scope_mismatch", where, f"submission {sub_digest[:12]} is not the one "
                     f"the episode recorded ({recorded[:12]})")
        usage = plain.get("usage") or {}
        atts = usage.get("attempts") or []
        costs = [a.get("cost") for a in atts]
        kind = str((plain.get("termination") or {}).get("kind", ""))
        facts = (("termination", kind, term),
                 ("measurement_failure", int(kind in MEASUREMENT_FAILURES), mfail),
                 ("cost", None if any(c is None for c in costs) else float(sum(costs)), cost),
                 ("input_tokens", sum(a.get("input_tokens") or 0 for a in atts), tin),
                 ("output_tokens", sum(a.get("output_tokens") or 0 for a in atts), tout),
                 ("requests", int(usage.get("requests") or 0), requests),
                 ("tool_calls", int(usage.get("tool_calls") or 0), tools),
                 ("model_attempts", len(atts), attempts))
        for name, evidence, ledger in facts:
            if evidence != ledger:
                self.bad("row_disagrees_with_evidence", where, f"{name} is {ledger!r} in the "
                         f"ledger but {evidence!r} in the episode blob")

    def recorded_episodes(self, cols: str) -> int:
        """Check every recorded episode, then its assessments, in one streamed query.

        Returns how many episodes were checked.
        """
        n, last = 0, None
        versions: dict[str, dict[str, str]] = {}  # parsed once per distinct text
        for row in self.c.execute(
                f"SELECT e.administration, a.scorer_versions, {cols}, e.episode_digest, "
                "e.submission_digest, e.termination, e.measurement_failure, e.cost, "
                "e.input_tokens, e.output_tokens, e.requests, e.tool_calls, e.model_attempts, "
                "s.id, s.scorer, s.scorer_version, s.status, s.score, s.evidence_digest, "
                "s.assessment FROM episodes e JOIN administrations a ON a.id = e.administration "
                "LEFT JOIN assessments s ON s.administration = e.administration "
                "ORDER BY e.administration, s.scorer, s.scorer_version"):
            adm, versions_text = row[0], row[1]
            if adm != last:
                n, last = n + 1, adm
                self.episode(f"episodes administration={adm}",
                             dict(zip(KEY_COLUMNS, row[2:9], strict=True)), row[9:19])
            if row[19] is None:
                continue  # an episode without assessments
            if versions_text not in versions:
                versions[versions_text] = json.loads(versions_text)
            self.assessment("assessments", adm, versions[versions_text], row[10], *row[19:])
        return n

    def assessments(self, table: str, ref: Any, adm: int, versions: dict[str, str],
                    submission: str | None) -> None:
        if table == "episodes":
            q = ("SELECT id, scorer, scorer_version, status, score, evidence_digest, assessment "
                 "FROM assessments WHERE administration=?")
        else:
            q = ("SELECT id, scorer, scorer_version, status, score, evidence_digest, assessment "
                 "FROM superseded_assessments WHERE superseded=?")
        name = table.replace("episodes", "assessments")
        for row in self.c.execute(q, (ref,)):
            self.assessment(name, adm, versions, submission, *row)

    def assessment(self, table: str, adm: int, versions: dict[str, str], submission: str | None,
                   aid: int, scorer: str, version: str, status: str, score: float | None,
                   evd: str, text: str) -> None:
        """Check one assessment against its sealed instrument, its text and its evidence."""
        where = f"{table} id={aid} (administration {adm})"
        if versions.get(scorer) != version:
            self.bad("instrument_mismatch", where, f"scorer {scorer} version {version} is "
                     f"not the sealed version {versions.get(scorer)}")
        try:
            body = json.loads(text)
        except ValueError:
            self.bad("assessment_unreadable", where, "not JSON")
            return
        for name, col in (("scorer", scorer), ("scorer_version", version),
                          ("status", status), ("score", score), ("evidence_digest", evd)):
            if body.get(name) != col:
                self.bad("instrument_mismatch" if name.startswith("scorer") else
                         "row_disagrees_with_evidence", where,
                         f"{name} is {col!r} in the ledger but {body.get(name)!r} in the "
                         "sealed assessment")
        if submission is not None and evd != submission:
            self.bad("scope_mismatch", where, f"assessed evidence {str(evd)[:12]} is not "
                     f"the episode's submission {submission[:12]}")


def _blob_names(base: Path) -> set[str]:
    """Return the digest of every blob file under `base` (`ab/cdef...` -> `abcdef...`)."""
    names: set[str] = set()
    try:
        subdirs = [e for e in os.scandir(base) if e.is_dir()]
    except OSError:
        return names
    for sub in subdirs:
        with os.scandir(sub.path) as entries:
            names.update(sub.name + e.name for e in entries if e.is_file())
    return names


def _plan_digest(name: str, rows: list[dict[str, Any]], tagged: bool) -> str:
    """Return the digest of a campaign's sealed plan, as `records.canonical.digest` gives it.

    The rows are plain JSON already (parsed from the sealed texts), so without a tag-like key
    canonical JSON is one `json.dumps`, byte-identical to the full walk (a test holds them equal).
    """
    doc = {"campaign": name, "bindings": rows}
    if tagged:
        return digest(to_plain(doc))
    try:
        text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    except ValueError:  # a non-finite float: the walk tags it
        return digest(to_plain(doc))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text[:12] if isinstance(value, str) and len(text) == 64 else text[:80]


def _key_text(key: Any) -> str:
    if not isinstance(key, dict):
        return "an unknown administration"
    return "/".join(str(key.get(k)) for k in KEY_COLUMNS)
