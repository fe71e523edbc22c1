"""A small hand-built sealed store for the verifier's tests: every evidence table has rows.

Campaign `c1` (three administrations of target `t1`, plan digest computed from its definition
in run/campaign/plan.py): administration 1 recorded (two priced provider requests, a
submission, two assessments whose evidence is the submission), administration 2 recorded as
an infrastructure error, superseded and recorded again (so the history tables have rows),
administration 3 planned and never run. The campaign's config and source are blobs.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from agentmetrology.records import Assessment, Episode, EpisodeKey, Event, Usage
from agentmetrology.records.canonical import digest, to_plain
from agentmetrology.store import Binding
from agentmetrology.store.chain import GENESIS, head, next_head, row_digest, seal_rows
from agentmetrology.store.evidence import EpisodeEvidence
from agentmetrology.store.head_log import HEAD_LOG_FILE
from agentmetrology.store.qualify import Qualification
from support import stores

VERSIONS = {"ground_truth_f1": "1.0.0", "shape_judge": "2.0.0"}
DETAILS = {"environment": "comtrade", "profile": "seeded", "max_steps": 30, "deadline_s": 60.0}
SPEC = "5" * 64
TARGET = "7" * 64
# What a check of the recorded store counts (bytes; plus BOUND in the full and ledger modes).
CHECKED = {"chain_entries": 27, "rows": 17, "blob_references": 7, "blobs_hashed": 6}
BOUND = {"administrations": 3, "episodes": 3}


def key(seed: int) -> EpisodeKey:
    """Return the key of the administration of `seed` (0, 1, 2)."""
    return stores.episode_key(seed)


def bindings(details: dict[str, object] | None = None) -> list[Binding]:
    """Return the campaign's three bindings."""
    return stores.bindings([key(i) for i in range(3)], SPEC, TARGET, VERSIONS,
                           details or DETAILS)


def plan_digest(bs: list[Binding], name: str = "c1") -> str:
    """Return the plan digest as a campaign registers it (run/campaign/plan.py's definition)."""
    return digest({"campaign": name, "bindings": [
        {"key": to_plain(b.key), "task": b.task_spec_digest, "target": b.target_config_digest,
         "scorers": b.scorer_versions, "details": b.details} for b in bs]})


def episode(k: EpisodeKey, kind: str, costs: tuple[float, ...]) -> tuple[Episode, list[Assessment]]:
    """Return an episode of `k` ending with `kind` and its two assessments of its submission."""
    ep = stores.episode(k, kind, events=[Event(0, "agent", "message", "note", {}, kind, 0.0)],
                        sub=stores.submission(kind) if kind == "submitted" else None,
                        detail=kind, usage=Usage(3, 2, stores.attempts(costs, step=1)))
    plain = EpisodeEvidence.from_records(ep).submission
    evidence = "" if plain is None else hashlib.sha256(plain).hexdigest()
    scored = [stores.assessment("ground_truth_f1", "PASS", 1.0, evidence=evidence,
                                version=VERSIONS["ground_truth_f1"]),
              stores.assessment("shape_judge", "PARTIAL", 50.0, evidence=evidence,
                                version=VERSIONS["shape_judge"])]
    return ep, scored


def build(root: Path, details: dict[str, object] | None = None) -> Path:
    """Record the campaign into a new store at `root` and return `root`."""
    bs = bindings(details)
    with stores.open_store(root) as st:
        st.register_campaign("c1", plan_digest(bs), {"name": "c1"}, bs,
                             source_text="[campaign]\nname = 'c1'\n")
        run = st.begin_run("c1", "inline")
        for seed, kind, costs in ((0, "submitted", (0.25, 0.5)), (1, "infra_error", (0.125,))):
            adm = st.ledger.administration(key(seed))
            assert adm is not None
            ep, scored = episode(key(seed), kind, costs)
            st.record_episode(st.start_attempt(adm, run, "inline"), ep, scored)
        assert st.supersede_measurement_failures("c1", run) == 1
        adm = st.ledger.administration(key(1))
        assert adm is not None
        ep, scored = episode(key(1), "submitted", ())
        st.record_episode(st.start_attempt(adm, run, "inline"), ep, scored)
        st.end_run(run, "completed")
    return root


def copy(built: Path, to: Path) -> Path:
    """Return a fresh copy of a built store at `to`."""
    shutil.copytree(built, to)
    return to


def execute(root: Path, *statements: str) -> None:
    """Run SQL statements on a store's ledger, outside its API (an edit a forger makes)."""
    conn = sqlite3.connect(root / "ledger.sqlite")
    try:
        for s in statements:
            conn.execute(s)
        conn.commit()
    finally:
        conn.close()


def reseal(root: Path, *statements: str, rows: tuple[tuple[str, object], ...] = (),
           append: bool = False) -> None:
    """Run SQL statements, then seal `rows` again as a forger who rewrites history: the
    digest of each row's latest chain entry replaced (a row with none, or removed now: an
    entry appended), every head recomputed and the head log's lines rewritten to match
    (appending an entry for a row already sealed would be `row_resealed`). `append`: fresh
    entries appended, the head log left as it is."""
    conn = sqlite3.connect(root / "ledger.sqlite")
    try:
        for s in statements:
            conn.execute(s)
        if append:
            seal_rows(conn, rows)
        else:
            _rewrite(conn, rows)
        conn.commit()
    finally:
        conn.close()
    if not append:
        _rewrite_log(root)


def _rewrite(conn: sqlite3.Connection, rows: tuple[tuple[str, object], ...]) -> None:
    """Put each row's digest now into its latest chain entry (or append one), heads relinked."""
    for table, ref in rows:
        d = row_digest(conn, table, ref)
        latest = conn.execute("SELECT seq FROM chain WHERE tbl=? AND ref=? ORDER BY seq DESC "
                              "LIMIT 1", (table, str(ref))).fetchone()
        if latest is None or d is None:
            seal_rows(conn, [(table, ref)])
        else:
            conn.execute("UPDATE chain SET row_digest=? WHERE seq=?", (d, latest[0]))
    h = GENESIS
    for seq, tbl, ref, d in list(conn.execute("SELECT seq, tbl, ref, row_digest FROM chain "
                                              "ORDER BY seq")):
        h = next_head(h, tbl, ref, d)
        conn.execute("UPDATE chain SET head=? WHERE seq=?", (h, seq))


def _rewrite_log(root: Path) -> None:
    """Rewrite each line of the head log with the chain's head at its length now."""
    log = root / "ledger.heads"
    heads = dict(query(root, "SELECT seq, head FROM chain"))
    lines = [line.split(" ") for line in log.read_text().splitlines()]
    log.write_text("".join(f"{n} {heads.get(int(n), h)}\n" for n, h in lines))


def forge(root: Path, rows: list[tuple[str, object]], *statements: tuple[str, tuple]) -> None:
    """Edit the ledger as a forger who appends: the rows' new digests appended to the chain
    and the new head to its log (every byte self-consistent)."""
    conn = sqlite3.connect(root / "ledger.sqlite")
    try:
        for sql, args in statements:
            conn.execute(sql, args)
        seal_rows(conn, rows)
        conn.commit()
        length, now = head(conn)
    finally:
        conn.close()
    with (root / HEAD_LOG_FILE).open("a") as log:
        log.write(f"{length} {now}\n")


def set_binding(root: Path, adm: int, text: str) -> None:
    """Replace an administration's sealed binding text, digest recomputed and resealed."""
    conn = sqlite3.connect(root / "ledger.sqlite")
    try:
        conn.execute("UPDATE administrations SET binding=?, binding_digest=? WHERE id=?",
                     (text, hashlib.sha256(text.encode()).hexdigest(), adm))
        conn.commit()
    finally:
        conn.close()
    reseal(root, rows=(("administrations", adm),))


def query(root: Path, sql: str, *args: object) -> list[tuple[object, ...]]:
    """Return the rows of a query on a store's ledger."""
    conn = sqlite3.connect(root / "ledger.sqlite")
    try:
        return list(conn.execute(sql, args))
    finally:
        conn.close()


def log_head(root: Path, length: int) -> str:
    """Return the head the store's head log witnessed at a chain length."""
    for line in (root / "ledger.heads").read_text().splitlines():
        n, h = line.split(" ")
        if int(n) == length:
            return h
    raise KeyError(length)


def blob(root: Path, d: str) -> Path:
    """Return the path of a blob."""
    return root / "blobs" / d[:2] / d[2:]


# -- readers of the verifier tests ---------------------------------------------

def files(root: Path) -> dict[Path, bytes]:
    """Return the store's files (SQLite's WAL side files aside: a reader may create them)."""
    return {p: p.read_bytes() for p in root.rglob("*")
            if p.is_file() and not p.name.endswith(("-wal", "-shm"))}


def texts(q: Qualification) -> list[tuple[str, str, str, str]]:
    """Return every problem as (kind, result, where, detail)."""
    return [(p.kind, p.result, p.where, p.detail) for p in q.problems]


def sealed_digest(root: Path, table: str, ref: str) -> str:
    """Return the digest the latest chain entry of a row sealed."""
    return str(query(root, "SELECT row_digest FROM chain WHERE tbl=? AND ref=? "
                           "ORDER BY seq DESC LIMIT 1", table, ref)[0][0])


def episode_digests(root: Path, adm: int) -> tuple[str, str]:
    """Return the episode and submission digests of an administration's episode."""
    ep, sub = query(root, "SELECT episode_digest, submission_digest FROM episodes "
                          "WHERE administration=?", adm)[0]
    return str(ep), str(sub)


def relink(root: Path) -> None:
    """Recompute every head of the chain from its entries (a forger hiding an entry edit)."""
    h = GENESIS
    rows = query(root, "SELECT seq, tbl, ref, row_digest FROM chain ORDER BY seq")
    statements = []
    for seq, tbl, ref, d in rows:
        h = next_head(h, str(tbl), str(ref), None if d is None else str(d))
        statements.append(f"UPDATE chain SET head='{h}' WHERE seq={seq}")
    execute(root, *statements)


# -- the fixtures of the verifier tests (imported by them under these names) --------------------

@pytest.fixture(name="built", scope="module")
def built_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The recorded store, built once per module."""
    return build(tmp_path_factory.mktemp("verify") / "store")


@pytest.fixture(name="root")
def store_copy(built: Path, tmp_path: Path) -> Path:
    """A fresh copy of the recorded store for one test to edit."""
    return copy(built, tmp_path / "store")
