"""The ledger's hash chain: sealed at each append, through every write path of the store."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from agentmetrology.records import BillableAttempt
from agentmetrology.store import EvidenceStore
from agentmetrology.store.chain import GENESIS, head
from agentmetrology.store.verify import verify_store
from support.stores import episode_key, make_episode, register

OLD = Path(__file__).resolve().parents[1] / "fixtures" / "pre_plugin_store"


def _record(st: EvidenceStore, i: int, kind: str) -> int:
    adm = st.ledger.administration(episode_key(i))
    assert adm is not None
    attempt = st.start_attempt(adm, None, "inline")
    ep, scored = make_episode(episode_key(i), kind, costs=(0.5,))
    st.record_episode(attempt, ep, scored)
    return attempt


def _bytes_ok(root: Path) -> list[str]:
    """Return the problems of the bytes-level check (the fixtures' digests are not real plans)."""
    return [p.text() for p in verify_store(root, mode="hash-only").problems]


def test_every_write_path_is_sealed(tmp_path: Path) -> None:
    root = tmp_path / "s"
    with EvidenceStore.open(root, scrub_env=False) as st:
        assert st.sealed and head(st.ledger.conn) == (0, GENESIS)
        register(st, 5)
        heads = [head(st.ledger.conn)]
        run = st.begin_run("c1", "inline")
        for i, kind in enumerate(("submitted", "infra_error", "agent_error")):
            _record(st, i, kind)
            heads.append(head(st.ledger.conn))
        adm = st.ledger.administration(episode_key(3))
        assert adm is not None
        failed = st.start_attempt(adm, run, "inline")
        st.record_billable(failed, BillableAttempt("r1", "p", "m", "q1", 10, 2, 0, 0.01, 0.1,
                                                   "ok"))
        st.fail_attempt(failed, "boom")
        st.start_attempt(adm, run, "inline")
        assert st.recover() == 1
        st.set_not_launched([adm], "budget")  # a launch note: not evidence, not chained
        assert st.supersede_measurement_failures("c1", run) == 1
        _record(st, 1, "submitted")  # re-measured after superseding
        st.end_run(run, "completed")
        heads.append(head(st.ledger.conn))
    assert len({h for _, h in heads}) == len(heads)  # every append moved the head
    assert _bytes_ok(root) == []
    q = verify_store(root, mode="hash-only")
    assert q.qualified and q.head == heads[-1][1] and q.chain_length == heads[-1][0]
    # Every table of evidence is covered: an edit in place anywhere is caught.
    for table, column, value in (("attempts", "detail", "'x'"), ("runs", "outcome", "'x'"),
                                 ("billable_attempts", "cost", "9"),
                                 ("superseded_episodes", "cost", "9"),
                                 ("superseded_assessments", "score", "9"),
                                 ("campaigns", "planned", "9")):
        copy = tmp_path / table
        shutil.copytree(root, copy)
        conn = sqlite3.connect(copy / "ledger.sqlite")
        conn.execute(f"UPDATE {table} SET {column}={value}")
        conn.commit()
        conn.close()
        problems = _bytes_ok(copy)
        assert problems and all(p.startswith(f"row_changed: {table} ") for p in problems), table


def test_a_row_inserted_outside_the_chain_is_caught(tmp_path: Path) -> None:
    root = tmp_path / "s"
    with EvidenceStore.open(root, scrub_env=False) as st:
        register(st, 2)
        _record(st, 0, "submitted")
    conn = sqlite3.connect(root / "ledger.sqlite")
    conn.execute("INSERT INTO runs (campaign, backend, pid, host, started_at) "
                 "VALUES ('c1', 'inline', 1, 'h', 't')")
    conn.execute("UPDATE chain SET head='0' WHERE seq=1")
    conn.commit()
    conn.close()
    kinds = sorted(p.kind for p in verify_store(root, mode="hash-only").problems)
    assert kinds == ["chain_broken", "row_not_sealed"]


def test_an_older_store_resumes_unsealed_and_seals_only_on_request(tmp_path: Path) -> None:
    root = tmp_path / "old"
    shutil.copytree(OLD, root)
    with EvidenceStore.open(root, scrub_env=False) as st:
        assert not st.sealed
        st.end_run(st.begin_run("pre-plugin", "inline"), "completed")  # a writer appends
        assert head(st.ledger.conn) == (0, GENESIS)  # ...without a partial chain
    assert verify_store(root).result == "unsealed"
    with EvidenceStore.open(root, scrub_env=False) as st:
        assert st.seal_existing() == 12 + 12 + 24 + 12 + 2 + 1  # adm, att, asm, eps, runs, c
        assert st.sealed and st.seal_existing() == 0
    assert verify_store(root, mode="hash-only").qualified
