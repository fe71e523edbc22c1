"""The ledger: sealed plans, append-only attempts, one episode per key, atomic recording."""

from __future__ import annotations

import sqlite3

import pytest

from agentmetrology.store import (
    AttemptStateError,
    BindingMismatchError,
    CampaignMismatchError,
    DuplicateEpisodeError,
    EvidenceStore,
    StoreBusyError,
)
from support.stores import episode_key, make_episode, register


def _adm(st: EvidenceStore, i: int):  # type: ignore[no-untyped-def]
    adm = st.ledger.administration(episode_key(i))
    assert adm is not None
    return adm


def test_wal_mode_and_schema(store: EvidenceStore) -> None:
    conn = store.ledger.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"campaigns", "administrations", "attempts", "episodes", "assessments"} <= tables


def test_registration_seals_bindings_and_is_idempotent(store: EvidenceStore) -> None:
    rid = register(store, 3)
    assert register(store, 3) == rid  # a resumed run re-registers the same plan
    binding = store.binding(episode_key(1))
    assert binding["registration_id"] == rid and binding["seed"] == 1
    assert binding["task_spec_digest"] == "a" * 64
    assert binding["scorer_versions"] == {"ground_truth_f1": "1.0.0", "shape_judge": "1.0.0"}
    assert [a.key.seed for a in store.pending("c1")] == [0, 1, 2]
    with pytest.raises(CampaignMismatchError, match="different plan"):
        register(store, 3, plan="q" * 64)


def test_record_episode_with_assessments_in_one_transaction(store: EvidenceStore) -> None:
    register(store, 2)
    attempt = store.start_attempt(_adm(store, 0), None, "inline")
    ep, scored = make_episode(episode_key(0), costs=(0.25, 0.5))
    digests = store.record_episode(attempt, ep, scored)
    row = store.episode(episode_key(0))
    assert row is not None and row["attempt"] == attempt and row["cost"] == 0.75
    assert row["episode_digest"] == digests.episode
    assert [a["scorer"] for a in row["assessments"]] == ["ground_truth_f1", "shape_judge"]
    judge = row["assessments"][1]
    assert judge["assessment"]["score"] == 50.0 and len(judge["assessment_digest"]) == 64
    assert store.load_episode(episode_key(0))["termination"]["kind"] == "submitted"
    assert store.attempts(episode_key(0))[0]["status"] == "finished"
    assert [a.key.seed for a in store.pending("c1")] == [1]


def test_duplicate_submission_of_a_key_is_rejected(store: EvidenceStore) -> None:
    register(store, 1)
    ep, scored = make_episode(episode_key(0))
    first = store.start_attempt(_adm(store, 0), None, "inline")
    store.record_episode(first, ep, scored)
    second = store.start_attempt(_adm(store, 0), None, "inline")
    with pytest.raises(DuplicateEpisodeError, match="already has a recorded episode"):
        store.record_episode(second, ep, scored)
    statuses = [a["status"] for a in store.attempts(episode_key(0))]
    assert statuses == ["finished", "failed"]  # the rejected attempt is kept, marked
    assert "rejected" in store.attempts(episode_key(0))[1]["detail"]
    conn = store.ledger.conn
    assert conn.execute("SELECT COUNT(*) FROM episodes").fetchone()[0] == 1
    # The constraint lives in SQLite itself, not only in the Python check.
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        conn.execute("INSERT INTO episodes SELECT * FROM episodes")


def test_wrong_key_stale_attempt_and_scorer_version_are_refused(store: EvidenceStore) -> None:
    register(store, 2)
    attempt = store.start_attempt(_adm(store, 0), None, "inline")
    with pytest.raises(BindingMismatchError, match="belongs to"):
        store.record_episode(attempt, *make_episode(episode_key(1)))
    with pytest.raises(BindingMismatchError, match="sealed version"):
        store.record_episode(attempt, *make_episode(episode_key(0), version="2.0.0"))
    assert store.recover() == 1  # a new run finds the attempt still `started`
    with pytest.raises(AttemptStateError, match="interrupted"):
        store.record_episode(attempt, *make_episode(episode_key(0)))
    assert store.episode(episode_key(0)) is None
    assert [a["status"] for a in store.attempts(episode_key(0))] == ["interrupted"]


def test_failed_write_leaves_no_partial_episode(store: EvidenceStore) -> None:
    register(store, 1)
    attempt = store.start_attempt(_adm(store, 0), None, "inline")
    ep, scored = make_episode(episode_key(0))
    bad = [scored[0], type(scored[1])("shape_judge", "1.0.0", "BOGUS", 1.0)]  # type: ignore[arg-type]
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        store.record_episode(attempt, ep, bad)
    assert store.episode(episode_key(0)) is None
    assert store.ledger.conn.execute("SELECT COUNT(*) FROM assessments").fetchone()[0] == 0


def test_status_splits_agent_and_infrastructure_failures(store: EvidenceStore) -> None:
    register(store, 6)
    outcomes = {0: ("submitted", (0.5,)), 1: ("step_limit", (0.25,)),
                2: ("infra_error", (0.1,)), 3: ("submitted", (None,))}
    for i, (kind, costs) in outcomes.items():
        attempt = store.start_attempt(_adm(store, i), None, "inline")
        store.record_episode(attempt, *make_episode(episode_key(i), kind, costs))
    failed = store.start_attempt(_adm(store, 4), None, "inline")
    store.fail_attempt(failed, "worker crashed")
    store.set_not_launched([_adm(store, 5)], "budget: max_cost 1 reached")
    s = store.status("c1")
    t = s.total
    assert (t.planned, t.done, t.remaining) == (6, 4, 2)
    assert (t.submitted, t.failed_agent, t.failed_infra, t.errored) == (2, 1, 1, 1)
    assert (t.cost, t.cost_unknown, t.not_launched) == (0.85, 1, 1)
    assert s.not_launched_reasons == {"budget: max_cost 1 reached": 1}
    assert not s.complete
    gt = s.scores["t1"]["ground_truth_f1"]
    assert gt["n"] == 3 and gt["mean_score"] == 1.0  # the infra_error episode is excluded
    assert s.to_json()["total"]["failed_infrastructure"] == 2


def test_one_writer_at_a_time(store: EvidenceStore) -> None:
    with store.lock(), pytest.raises(StoreBusyError, match="another writer"):
        EvidenceStore.open(store.root, scrub_env=False)  # a second writer, same process
    store.close()
    EvidenceStore.open(store.root, scrub_env=False).close()  # released: can be taken again
