"""Superseding measurement failures: history kept, cost counted once, agent failures untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agentmetrology.store import DuplicateEpisodeError, EvidenceStore
from agentmetrology.store.schema import SCHEMA
from support.stores import episode_key, make_episode, register


def _record(st: EvidenceStore, i: int, kind: str, cost: float) -> int:
    adm = st.ledger.administration(episode_key(i))
    assert adm is not None
    attempt = st.start_attempt(adm, None, "inline")
    ep, scored = make_episode(episode_key(i), kind, costs=(cost,))
    st.record_episode(attempt, ep, scored)
    return attempt


def test_supersede_moves_only_measurement_failures(store: EvidenceStore) -> None:
    register(store, 4)
    for i, kind in enumerate(("submitted", "infra_error", "cancelled", "agent_error")):
        _record(store, i, kind, 0.5)
    before = store.status("c1").total
    assert before.failed_infra == 2 and before.cost == pytest.approx(2.0)
    run = store.begin_run("c1", "inline")
    assert store.supersede_measurement_failures("c1", run) == 2
    assert [a.key.seed for a in store.pending("c1")] == [1, 2]
    assert store.episode(episode_key(1)) is None and store.episode(episode_key(3)) is not None
    [old] = store.superseded(episode_key(1))
    assert old["termination"] == "infra_error" and old["superseded_by_run"] == run
    assert [a["scorer"] for a in old["assessments"]] == ["ground_truth_f1", "shape_judge"]
    assert store.superseded(episode_key(3)) == [] and store.superseded(episode_key(0)) == []
    assert [a["status"] for a in store.attempts(episode_key(1))] == ["finished"]  # untouched
    after = store.status("c1").total
    assert after.done == 2 and after.failed_infra == 0 and after.superseded == 2
    assert after.cost == pytest.approx(2.0) and after.superseded_cost == pytest.approx(1.0)
    assert store.supersede_measurement_failures("c1", run) == 0  # nothing left to re-open


def test_re_recorded_episode_adds_cost_and_stays_unique(store: EvidenceStore) -> None:
    register(store, 1)
    first = _record(store, 0, "infra_error", 0.25)
    store.supersede_measurement_failures("c1", None)
    second = _record(store, 0, "submitted", 0.5)
    assert first != second
    total = store.status("c1").total
    assert total.done == 1 and total.submitted == 1 and total.superseded == 1
    assert total.cost == pytest.approx(0.75) and total.superseded_cost == pytest.approx(0.25)
    assert total.input_tokens == 200 and total.to_json()["superseded_cost"] == 0.25
    adm = store.ledger.administration(episode_key(0))
    assert adm is not None
    third = store.start_attempt(adm, None, "inline")
    with pytest.raises(DuplicateEpisodeError):  # still one current episode per key
        store.record_episode(third, *make_episode(episode_key(0)))


def test_supersede_is_one_transaction(store: EvidenceStore) -> None:
    register(store, 2)
    _record(store, 0, "infra_error", 0.1)
    _record(store, 1, "infra_error", 0.1)
    store.ledger.conn.execute("CREATE TRIGGER boom BEFORE DELETE ON episodes WHEN "
                              "OLD.administration = 2 BEGIN SELECT RAISE(ABORT, 'boom'); END")
    with pytest.raises(sqlite3.IntegrityError, match="boom"):
        store.supersede_measurement_failures("c1", None)
    conn = store.ledger.conn
    assert conn.execute("SELECT COUNT(*) FROM episodes").fetchone()[0] == 2
    assert conn.execute("SELECT COUNT(*) FROM superseded_episodes").fetchone()[0] == 0


def test_old_store_gains_the_history_tables_on_open(tmp_path: Path) -> None:
    root = tmp_path / "old"
    root.mkdir()
    old_schema = SCHEMA.split("CREATE TABLE IF NOT EXISTS superseded_episodes")[0]
    conn = sqlite3.connect(root / "ledger.sqlite")
    conn.executescript(old_schema + "INSERT INTO meta VALUES ('schema', '1');")
    conn.close()
    with EvidenceStore.open(root, create=False, write=True, scrub_env=False) as st:
        tables = {r[0] for r in st.ledger.conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"superseded_episodes", "superseded_assessments"} <= tables
        register(st, 1)
        assert st.status("c1").total.superseded == 0
