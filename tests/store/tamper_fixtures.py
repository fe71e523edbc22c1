"""A small recorded campaign and the interventions of the tamper study (edits to a store copy).

Two families. *Resealed* interventions edit a binding (specification, seed, registration,
instrument, scope) or a ledger row and then make every byte self-consistent again, as a
careful forger would: binding and assessment digests recomputed, the hash chain rebuilt from
the edited rows and the head log beside the ledger rewritten to match it (a forger who leaves
the log is caught by it in every mode: tests/store/test_head_log.py). *Raw* interventions
change bytes and leave them inconsistent (a blob edited or deleted, a row edited in place, the
one-line SQL relabel of the issue).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from agentmetrology.records.canonical import digest
from agentmetrology.run.campaign import load_campaign
from agentmetrology.store.blobs import contents
from agentmetrology.store.chain import GENESIS, head, seal_all
from agentmetrology.store.head_log import HEAD_LOG_FILE
from support.stores import record_into

CAMPAIGN = """
[campaign]
name = "tamper"
tasks = ["T3_duplicates", "T7_totals_trap"]
seeds = "0-2"
levels = ["L0", "L2"]
conditions = ["clean"]

[[targets]]
name = "rule"
kind = "rule"
agent = "rule"

[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"

[[targets]]
name = "no_dedup"
kind = "scripted"
agent = "scripted:no_dedup"
"""

Edit = Callable[[sqlite3.Connection, Path], None]


def record_store(tmp: Path) -> Path:
    """Run the campaign into a new store under `tmp` and return the store's path."""
    toml = tmp / "tamper.toml"
    toml.write_text(CAMPAIGN)
    store = tmp / "store"
    record_into(store, load_campaign(toml))
    return store


def damage_table(store: Path, table: str) -> None:
    """Zero the b-tree header of a ledger table's root page: no query of it finishes."""
    with closing(sqlite3.connect(store / "ledger.sqlite")) as c:  # closed here, not by gc
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = c.execute("PRAGMA page_size").fetchone()[0]
        pages = [r[0] for r in c.execute("SELECT rootpage FROM sqlite_master "
                                         "WHERE type='table' AND name=?", (table,))]
    with open(store / "ledger.sqlite", "r+b") as f:
        f.seek((pages[0] - 1) * size)
        f.write(b"\x00" * 16)


def snapshot(store: Path) -> dict[str, bytes]:
    """Return every file of a store (ledger and blobs) by relative path, WAL side files aside."""
    return {str(p.relative_to(store)): p.read_bytes() for p in sorted(store.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm", ".lock"))}


def restore(store: Path, files: dict[str, bytes]) -> None:
    """Put back exactly the files of a snapshot (and nothing else).

    Only what differs is touched: a file the snapshot lacks (WAL side files included) is
    deleted, then emptied folders, and a snapshot file that is missing or has other bytes is
    written back. Rewriting every blob of the store after each of the study's 66 interventions
    cost more than checking the store.
    """
    if not store.is_dir():
        store.mkdir(parents=True)
    for path in sorted(store.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and not path.is_symlink():
            if not any(path.iterdir()):
                path.rmdir()
        elif str(path.relative_to(store)) not in files:
            path.unlink()
    for rel, data in files.items():
        path = store / rel
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        if path.is_symlink() or not path.is_file() or path.read_bytes() != data:
            path.unlink(missing_ok=True)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def apply(store: Path, edit: Edit, reseal: bool) -> None:
    """Apply one intervention to the store; with `reseal`, rebuild the chain afterwards."""
    conn = sqlite3.connect(store / "ledger.sqlite", isolation_level=None)
    try:
        conn.execute("BEGIN")
        edit(conn, store)
        if reseal:
            conn.execute("DELETE FROM chain")
            seal_all(conn)
        conn.execute("COMMIT")
        if reseal:
            length, now = head(conn)
            (store / HEAD_LOG_FILE).write_text(f"0 {GENESIS}\n{length} {now}\n")
    finally:
        conn.close()


# -- helpers a forger uses to keep bytes self-consistent -----------------------------------------

def _set_binding(c: sqlite3.Connection, adm: int, **changes: object) -> None:
    """Change bound fields in both the columns and the sealed binding text, digest recomputed."""
    text = c.execute("SELECT binding FROM administrations WHERE id=?", (adm,)).fetchone()[0]
    bound = json.loads(text)
    for name, value in changes.items():
        if name in ("target", "task", "seed"):
            bound["key"][name] = value
            if name == "seed":
                bound["seed"] = value
            c.execute(f"UPDATE administrations SET {name}=? WHERE id=?", (value, adm))
        elif name == "scorer_versions":
            bound[name] = value
            c.execute("UPDATE administrations SET scorer_versions=? WHERE id=?",
                      (json.dumps(value, sort_keys=True), adm))
        else:
            bound[name] = value
            c.execute(f"UPDATE administrations SET {name}=? WHERE id=?", (value, adm))
    new = json.dumps(bound, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    c.execute("UPDATE administrations SET binding=?, binding_digest=? WHERE id=?",
              (new, hashlib.sha256(new.encode()).hexdigest(), adm))


def _replan(c: sqlite3.Connection) -> None:
    """Recompute the campaign's plan digest from the (edited) sealed bindings."""
    rows = []
    for (text,) in c.execute("SELECT binding FROM administrations ORDER BY ordinal"):
        b = json.loads(text)
        details = {k: v for k, v in b.items() if k not in (
            "key", "registration_id", "seed", "task_spec_digest", "target_config_digest",
            "scorer_versions")}
        rows.append({"key": b["key"], "task": b["task_spec_digest"],
                     "target": b["target_config_digest"], "scorers": b["scorer_versions"],
                     "details": details})
    c.execute("UPDATE campaigns SET plan_digest=?, planned=?",
              (digest({"campaign": "tamper", "bindings": rows}), len(rows)))


def _set_assessment(c: sqlite3.Connection, adm: int, scorer: str, **changes: object) -> None:
    aid, text = c.execute("SELECT id, assessment FROM assessments WHERE administration=? AND "
                          "scorer=?", (adm, scorer)).fetchone()
    body = json.loads(text)
    body.update(changes)
    new = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    sets = ", ".join(f"{k}=?" for k in changes)
    c.execute(f"UPDATE assessments SET {sets}, assessment=?, assessment_digest=? WHERE id=?",
              (*changes.values(), new, hashlib.sha256(new.encode()).hexdigest(), aid))


def _recorded(c: sqlite3.Connection) -> list[int]:
    return [r[0] for r in c.execute("SELECT administration FROM episodes ORDER BY administration")]


def _other_target(c: sqlite3.Connection, adm: int) -> int:
    """Return an administration of the same task and seed but another target."""
    t, task, seed = c.execute("SELECT target, task, seed FROM administrations "
                              "WHERE id=?", (adm,)).fetchone()
    return int(c.execute("SELECT a.id FROM administrations a JOIN episodes e ON "
                         "e.administration=a.id WHERE a.target!=? AND a.task=? AND a.seed=? "
                         "ORDER BY a.id LIMIT 1", (t, task, seed)).fetchone()[0])


# -- the binding kinds (each resealed) -----------------------------------------------------------

def specification(i: int, replan: bool) -> Edit:
    """Another task specification digest bound to the i-th recorded administration."""
    def edit(c: sqlite3.Connection, _: Path) -> None:
        adm = _recorded(c)[i]
        _set_binding(c, adm, task_spec_digest=hashlib.sha256(f"spec{i}".encode()).hexdigest())
        if replan:
            _replan(c)
    return edit


def seed(i: int, replan: bool) -> Edit:
    """Another seed bound to the i-th recorded administration."""
    def edit(c: sqlite3.Connection, _: Path) -> None:
        _set_binding(c, _recorded(c)[i], seed=1000 + i)
        if replan:
            _replan(c)
    return edit


def registration(i: int, campaign_too: bool) -> Edit:
    """Another registration id on one administration (or on the campaign row only)."""
    def edit(c: sqlite3.Connection, _: Path) -> None:
        new = f"{i:032x}"
        if campaign_too:
            c.execute("UPDATE campaigns SET registration_id=?", (new,))
        else:
            _set_binding(c, _recorded(c)[i], registration_id=new)
    return edit


def instrument(i: int, sealed_side: bool) -> Edit:
    """Another scorer version: on the assessment, or on the sealed binding (and plan)."""
    def edit(c: sqlite3.Connection, _: Path) -> None:
        adm = _recorded(c)[i]
        if sealed_side:
            _set_binding(c, adm, scorer_versions={"ground_truth_f1": "9.9.9",
                                                  "shape_judge": "1.0.0"})
            _replan(c)
        else:
            _set_assessment(c, adm, "ground_truth_f1", scorer_version="9.9.9")
    return edit


def scope(i: int, how: str) -> Edit:
    """Evidence of the wrong administration, or administrations out of the sealed scope."""
    def edit(c: sqlite3.Connection, _: Path) -> None:
        adm = _recorded(c)[i]
        other = _other_target(c, adm)
        if how == "episode_blob":  # the case: pointed at another target's blob
            d = c.execute("SELECT episode_digest FROM episodes WHERE administration=?",
                          (other,)).fetchone()[0]
            c.execute("UPDATE episodes SET episode_digest=? WHERE administration=?", (d, adm))
        elif how == "submission_blob":
            d = c.execute("SELECT submission_digest FROM episodes WHERE administration=?",
                          (other,)).fetchone()[0]
            c.execute("UPDATE episodes SET submission_digest=? WHERE administration=?",
                      (d, adm))
        elif how == "target":
            _set_binding(c, adm, target=f"ghost{i}")
            _replan(c)
        elif how == "dropped":  # an administration removed from the sealed plan
            _drop(c, adm)
        elif how == "dropped_replanned":  # one cell cut out, planned count and digest redone
            _drop(c, adm)
            _replan(c)
        elif how == "seed_dropped_replanned":  # a whole seed cut out: the grid stays whole
            seed = c.execute("SELECT seed FROM administrations WHERE id=?", (adm,)).fetchone()[0]
            for (other,) in c.execute("SELECT id FROM administrations WHERE seed=?",
                                      (seed,)).fetchall():
                _drop(c, other)
            _replan(c)
    return edit


def _drop(c: sqlite3.Connection, adm: int) -> None:
    """Remove an administration and everything recorded of it."""
    for table in ("assessments", "episodes"):
        c.execute(f"DELETE FROM {table} WHERE administration=?", (adm,))
    c.execute("DELETE FROM billable_attempts WHERE attempt IN (SELECT id FROM attempts "
              "WHERE administration=?)", (adm,))
    c.execute("DELETE FROM attempts WHERE administration=?", (adm,))
    c.execute("DELETE FROM administrations WHERE id=?", (adm,))


def binding_interventions() -> list[tuple[str, str, Edit]]:
    """Return (kind, label, edit) of the resealed binding interventions (54)."""
    out: list[tuple[str, str, Edit]] = []
    for i in range(5):
        out.append(("specification", f"spec digest #{i}", specification(i, False)))
        out.append(("specification", f"spec digest + plan #{i}", specification(i, True)))
        out.append(("seed", f"seed #{i}", seed(i, False)))
        out.append(("seed", f"seed + plan #{i}", seed(i, True)))
        out.append(("registration", f"administration registration #{i}",
                    registration(i, False)))
        out.append(("instrument", f"assessment version #{i}", instrument(i, False)))
        out.append(("instrument", f"sealed version + plan #{i}", instrument(i, True)))
    out.append(("registration", "campaign registration", registration(7, True)))
    for i in range(4):
        for how in ("episode_blob", "submission_blob", "target"):
            out.append(("scope", f"{how} #{i}", scope(i, how)))
    out.append(("scope", "administration dropped", scope(5, "dropped")))
    out.append(("scope", "administration dropped #2", scope(6, "dropped")))
    out.append(("scope", "administration dropped + plan", scope(5, "dropped_replanned")))
    out.append(("scope", "seed dropped + plan", scope(5, "seed_dropped_replanned")))
    return out


# -- bytes and rows (raw), and ledger rows edited then resealed ----------------------------------

def _blob(store: Path, d: str) -> Path:
    return store / "blobs" / d[:2] / d[2:]


def blob_changed(column: str) -> Edit:
    """The bytes of the first episode's episode or submission blob changed."""
    def edit(c: sqlite3.Connection, store: Path) -> None:
        d = c.execute(f"SELECT {column} FROM episodes ORDER BY administration").fetchone()[0]
        path = _blob(store, d)
        path.chmod(0o644)
        path.write_bytes(contents(path.read_bytes()).replace(b'"', b"'", 1))
    return edit


def blob_deleted(column: str) -> Edit:
    """The first episode's episode or submission blob deleted."""
    def edit(c: sqlite3.Connection, store: Path) -> None:
        d = c.execute(f"SELECT {column} FROM episodes ORDER BY administration").fetchone()[0]
        _blob(store, d).unlink()
    return edit


def sql(statement: str) -> Edit:
    """One SQL statement run on the ledger."""
    def edit(c: sqlite3.Connection, _: Path) -> None:
        c.execute(statement)
    return edit


FIRST = "(SELECT MIN(administration) FROM episodes)"
# The example: every non-passing episode relabelled an infrastructure error at once.
RELABEL = ("UPDATE episodes SET termination='infra_error', measurement_failure=1 "
           "WHERE administration IN (SELECT administration FROM assessments "
           "WHERE scorer='ground_truth_f1' AND status!='PASS')")
MISSING = "'" + "0" * 64 + "'"


def byte_interventions() -> list[tuple[str, str, Edit, bool]]:
    """Return (kind, label, edit, reseal) of the byte and row interventions (16)."""
    return [
        ("blob", "episode blob bytes changed", blob_changed("episode_digest"), False),
        ("blob", "submission blob bytes changed", blob_changed("submission_digest"), False),
        ("blob", "episode blob deleted", blob_deleted("episode_digest"), False),
        ("blob", "submission blob deleted", blob_deleted("submission_digest"), False),
        ("row", "score edited in place", sql(
            f"UPDATE assessments SET score=1.0 WHERE administration={FIRST}"), False),
        ("row", "seed edited in place", sql(
            f"UPDATE administrations SET seed=77 WHERE id={FIRST}"), False),
        ("row", "status edited in place", sql(
            f"UPDATE assessments SET status='PASS' WHERE administration={FIRST}"), False),
        ("row", "cost edited in place", sql(
            f"UPDATE episodes SET cost=0.5 WHERE administration={FIRST}"), False),
        ("row", "termination edited in place", sql(
            f"UPDATE episodes SET termination='infra_error' WHERE administration={FIRST}"),
         False),
        ("row", "row points at a missing blob", sql(
            f"UPDATE episodes SET episode_digest={MISSING} WHERE administration={FIRST}"), False),
        ("row", "relabel non-passing as infrastructure errors", sql(RELABEL), False),
        ("row", "episode row deleted", sql(
            f"DELETE FROM assessments WHERE administration={FIRST}"), False),
        ("resealed row", "row points at a missing blob, resealed", sql(
            f"UPDATE episodes SET episode_digest={MISSING} WHERE administration={FIRST}"), True),
        ("resealed row", "relabel, resealed", sql(RELABEL), True),
        ("resealed row", "cost, resealed", sql(
            f"UPDATE episodes SET cost=0.5 WHERE administration={FIRST}"), True),
        ("resealed row", "termination, resealed", sql(
            f"UPDATE episodes SET termination='step_limit' WHERE administration={FIRST}"),
         True),
    ]
