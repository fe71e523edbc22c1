"""Ledger reads of a key it does not hold, the refusals of record_episode (exact messages,
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
)
from agentmetrology.store.chain import GENESIS, head
from support.stores import episode_key, make_episode, register

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
        assert binding_environment(text) == "comtrade", text


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
    # the store check names the edit (binding_text_changed).
    from agentmetrology.store.ledger import DEFAULT_ENVIRONMENT, binding_environment
    for text in ("[1]", '"x"', "1", "null", "not json", None):
        assert binding_environment(text) == DEFAULT_ENVIRONMENT
    assert binding_environment('{"environment": "permission"}') == "permission"
