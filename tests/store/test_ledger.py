"""The ledger: sealed plans, append-only attempts, one episode per key, atomic recording.

Ledger reads of a key it does not hold, the refusals of record_episode (exact messages,
the attempt failed, nothing written), and the older (unsealed) layout staying unsealed
(docs/evidence.md, "Older stores")."""

from __future__ import annotations

import dataclasses
import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from agentmetrology.records import EpisodeKey
from agentmetrology.store import (
    AttemptStateError,
    BindingMismatchError,
    CampaignMismatchError,
    DuplicateEpisodeError,
    EvidenceStore,
    StoreBusyError,
)
from agentmetrology.store.chain import GENESIS, head
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


OLD = Path(__file__).resolve().parents[1] / "fixtures" / "pre_plugin_store"
UNKNOWN = EpisodeKey("nope", "t", "T1_single_page", 0, "clean", "L2", 0)


def test_reads_of_a_key_the_ledger_does_not_hold(store: EvidenceStore) -> None:
    register(store, 1)
    ledger = store.ledger
    assert ledger.binding(UNKNOWN) is None and ledger.superseded(UNKNOWN) == []
    assert ledger.episode(UNKNOWN) is None and ledger.attempts(UNKNOWN) == []
    assert ledger.administration(UNKNOWN) is None
    assert ledger.superseded(episode_key(0)) == []  # held, never superseded


def test_an_unsealed_ledger_stays_unsealed_when_failures_are_superseded(tmp_path: Path) -> None:
    root = tmp_path / "old"
    shutil.copytree(OLD, root)
    with EvidenceStore.open(root, scrub_env=False) as st:
        assert not st.sealed
        register(st, 2, campaign="c9")
        adm = st.ledger.administration(episode_key(0, "c9"))
        assert adm is not None
        ep, scored = make_episode(episode_key(0, "c9"), "infra_error")
        st.record_episode(st.start_attempt(adm, None, "inline"), ep, scored)
        assert st.supersede_measurement_failures("c9", None) == 1
        assert [r["termination"] for r in st.superseded(episode_key(0, "c9"))] == ["infra_error"]
        assert head(st.ledger.conn) == (0, GENESIS)  # no partial chain started
        assert not st.sealed


def _attempt(st: EvidenceStore, i: int) -> int:
    adm = st.ledger.administration(episode_key(i))
    assert adm is not None
    return st.start_attempt(adm, None, "inline")


def test_refusals_name_the_attempt_and_the_keys(store: EvidenceStore) -> None:
    register(store, 2)
    k0 = "c1/t1/T3_duplicates/seed=0/clean/L2/repeat=0"
    k1 = "c1/t1/T3_duplicates/seed=1/clean/L2/repeat=0"
    ep0, scored0 = make_episode(episode_key(0))
    with pytest.raises(AttemptStateError) as exc:
        store.record_episode(999, ep0, scored0)
    assert str(exc.value) == "attempt 999 is not in the ledger"
    a0 = _attempt(store, 0)
    ep1, scored1 = make_episode(episode_key(1))
    with pytest.raises(BindingMismatchError) as mismatch:
        store.record_episode(a0, ep1, scored1)
    assert str(mismatch.value) == f"attempt {a0} belongs to {k0}, not to {k1}"
    store.record_episode(a0, ep0, scored0)
    again = _attempt(store, 0)
    with pytest.raises(DuplicateEpisodeError) as dup:
        store.record_episode(again, ep0, scored0)
    assert str(dup.value) == (f"{k0} already has a recorded episode (attempt {a0}); an "
                              "administration is recorded exactly once")
    a1 = _attempt(store, 1)
    store.fail_attempt(a1, "boom")
    with pytest.raises(AttemptStateError) as state:
        store.record_episode(a1, ep1, scored1)
    assert str(state.value) == (f"attempt {a1} is failed, not running; its result cannot be "
                                "recorded")


def test_the_unique_constraint_is_a_duplicate_and_fails_the_attempt(
        store: EvidenceStore) -> None:
    register(store, 1)
    a0 = _attempt(store, 0)
    ep, scored = make_episode(episode_key(0))
    with pytest.raises(DuplicateEpisodeError) as exc:
        store.record_episode(a0, ep, [scored[0], scored[0]])  # one scorer twice
    unique = ("UNIQUE constraint failed: assessments.administration, assessments.scorer, "
              "assessments.scorer_version")
    assert str(exc.value) == ("the ledger refused the episode of "
                              f"c1/t1/T3_duplicates/seed=0/clean/L2/repeat=0: {unique}")
    (attempt,) = store.attempts(episode_key(0))
    assert (attempt["id"], attempt["status"], attempt["detail"]) == (a0, "failed",
                                                                     f"rejected: {unique}")
    assert store.episode(episode_key(0)) is None  # nothing of the episode was written


def test_a_check_constraint_is_raised_as_is_and_fails_the_attempt(
        store: EvidenceStore) -> None:
    register(store, 1)
    a0 = _attempt(store, 0)
    ep, scored = make_episode(episode_key(0))
    bogus = dataclasses.replace(scored[0], status="BOGUS")  # type: ignore[arg-type]
    with pytest.raises(sqlite3.IntegrityError) as exc:
        store.record_episode(a0, ep, [bogus, scored[1]])
    assert str(exc.value).startswith("CHECK constraint failed")
    (attempt,) = store.attempts(episode_key(0))
    assert attempt["status"] == "failed" and attempt["detail"] == f"rejected: {exc.value}"
    assert store.episode(episode_key(0)) is None


def test_an_administration_as_the_ledger_holds_it(store: EvidenceStore) -> None:
    register(store, 3)
    adm = store.ledger.administration(episode_key(2))
    assert adm is not None
    text, binding_digest = store.ledger.binding(episode_key(2)) or ("", "")
    assert (adm.key, adm.ordinal, adm.binding_digest, adm.not_launched) == (
        episode_key(2), 2, binding_digest, None)
    assert adm.scorer_versions == {"ground_truth_f1": "1.0.0", "shape_judge": "1.0.0"}
    assert hashlib.sha256(text.encode()).hexdigest() == binding_digest
    store.set_not_launched([adm], "budget spent")
    again = store.ledger.administration(episode_key(2))
    assert again is not None and again.not_launched == "budget spent"
    assert [a.ordinal for a in store.pending("c1")] == [0, 1, 2]


def test_the_ledger_s_own_registration_check(store: EvidenceStore) -> None:
    rid = register(store, 1)
    ledger = store.ledger
    assert ledger.register_campaign("c1", "other-id", "p" * 64, "x", None, []) == rid
    with pytest.raises(CampaignMismatchError) as exc:
        ledger.register_campaign("c1", "other-id", "q" * 64, "x", None, [])
    assert str(exc.value) == ("campaign 'c1' is already in this store with a different plan "
                              f"(sealed {'p' * 12}, now {'q' * 12}); use a new campaign name or "
                              "another store")


def test_scorer_versions_are_stored_with_sorted_keys(store: EvidenceStore) -> None:
    from agentmetrology.store import Binding

    versions = {"shape_judge": "1.0.0", "ground_truth_f1": "1.0.0"}  # not in sorted order
    store.register_campaign("c2", "p" * 64, {"name": "c2"},
                            [Binding(episode_key(0, "c2"), 0, "a" * 64, "b" * 64, versions)])
    (text,) = store.ledger.conn.execute(
        "SELECT scorer_versions FROM administrations WHERE campaign='c2'").fetchone()
    assert text == '{"ground_truth_f1": "1.0.0", "shape_judge": "1.0.0"}'


def test_timestamps_are_utc_with_milliseconds() -> None:
    from agentmetrology.store.ledger import now

    stamp = now()
    assert stamp.endswith("+00:00") and len(stamp) == len("2026-12-01T19:22:06.751+00:00")


def test_the_environment_a_binding_names() -> None:
    from agentmetrology.store.ledger import binding_environment

    assert binding_environment('{"environment": "toolworlds"}') == "toolworlds"
    for text in (None, "", "{}", '{"environment": null}', "{not json"):
        assert binding_environment(text) == "", text  # names none: the registry's default


def test_a_ledger_of_another_schema_is_refused(tmp_path: Path) -> None:
    from agentmetrology.store.ledger import Ledger, LedgerError
    from agentmetrology.store.schema import SCHEMA_VERSION

    path = tmp_path / "ledger.sqlite"
    Ledger(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value='0' WHERE key='schema'")
    conn.commit()
    conn.close()
    with pytest.raises(LedgerError) as exc:
        Ledger(path)
    assert str(exc.value) == (f"ledger {path} has schema 0; this version reads schema "
                              f"{SCHEMA_VERSION}")


def test_a_reader_adds_no_writer_index(tmp_path: Path) -> None:
    root = tmp_path / "s"
    EvidenceStore.open(root, scrub_env=False).close()
    conn = sqlite3.connect(root / "ledger.sqlite")
    conn.execute("DROP INDEX assessments_verdicts")
    conn.commit()
    conn.close()
    EvidenceStore.open_readonly(root).close()
    conn = sqlite3.connect(root / "ledger.sqlite")
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    conn.close()
    assert "assessments_verdicts" not in names and "administrations_revisions" in names


def test_a_binding_text_that_is_not_an_object_names_the_default_environment() -> None:
    # An edited binding (JSON, but not an object) reads as an older store's, never a crash:
    # the store check names the edit (binding_text_changed). The store hands up "" (names
    # none); the registry above it reads that as its default.
    from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT, environment_or_default
    from agentmetrology.store.ledger import binding_environment
    for text in ("[1]", '"x"', "1", "null", "not json", None, '{"environment": null}'):
        assert binding_environment(text) == ""
        assert environment_or_default(binding_environment(text)) == DEFAULT_ENVIRONMENT
    assert DEFAULT_ENVIRONMENT == "comtrade"
    assert binding_environment('{"environment": "permission"}') == "permission"
    assert environment_or_default("permission") == "permission"
