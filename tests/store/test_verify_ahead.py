"""The ledger half of a full store check run in another process (store.verify_ahead) gives the
qualification the whole check run here gives: intact, tampered (every byte and binding
intervention of the tamper study), unsealed, damaged pages; and it is really taken (not run
again here), and stopped when the audit ends without it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

import store.tamper_fixtures as tf
from agentmetrology.archive.evidence_check import qualify_store, reopened_spec_digest
from agentmetrology.archive.importers.agm_store import load_agm
from agentmetrology.store import verify
from agentmetrology.store.verify_ahead import LedgerAhead, LedgerHalf, ledger_half

STUDY = ([(label, edit, reseal) for _, label, edit, reseal in tf.byte_interventions()]
         + [(label, edit, True) for _, label, edit in tf.binding_interventions()])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, bytes]]]:
    store = tf.record_store(tmp_path_factory.mktemp("half"))
    yield store, tf.snapshot(store)


def _ahead(store: Path) -> LedgerHalf | None:
    with LedgerAhead(store, reopened_spec_digest) as ahead:  # as the audit starts it
        return ahead.result()


def _same(store: Path) -> dict[str, object]:
    """Return the check with the import's reads and the ledger half from another process,
    after holding it equal to the whole check run here (with and without the reads)."""
    half = _ahead(store)
    assert half is not None and half == ledger_half(store, reopened_spec_digest)
    reads = load_agm(store).blob_reads
    shared = qualify_store(store, "full", reads=reads, ledger=half)
    assert shared == qualify_store(store, "full", reads=reads) == qualify_store(store, "full")
    return shared


def test_an_intact_store_takes_the_half_instead_of_running_it(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = recorded
    half = _ahead(store)
    assert half is not None and not half.failed and half.length > 0
    assert half.bindings.reopened and half.bindings.checked["specifications_reopened"]
    monkeypatch.setattr(verify._Verifier, "ledger_steps",
                        lambda self: pytest.fail("the ledger steps ran again"))
    monkeypatch.setattr(verify._Verifier, "bindings",
                        lambda self: pytest.fail("the binding checks ran again"))
    assert half.episodes is not None and half.episodes.checked["episodes"] > 0
    monkeypatch.setattr(verify._Verifier, "recorded_episodes",
                        lambda self, *a: pytest.fail("the episode checks read the ledger again"))
    q = qualify_store(store, "full", ledger=half)
    monkeypatch.undo()
    assert q == qualify_store(store, "full") and q["qualified"]


@pytest.mark.parametrize("label, edit, reseal", STUDY, ids=[s[0] for s in STUDY])
def test_a_tampered_store_is_reported_the_same(recorded: tuple[Path, dict[str, bytes]],
                                               label: str, edit: tf.Edit, reseal: bool) -> None:
    store, files = recorded
    tf.apply(store, edit, reseal)
    try:
        assert not _same(store)["qualified"], label
    finally:
        tf.restore(store, files)


def test_damaged_pages_are_reported_the_same(recorded: tuple[Path, dict[str, bytes]]) -> None:
    store, files = recorded
    try:
        tf.damage_table(store, "chain")
        half = _ahead(store)
        assert half is not None and half.failed and half.bindings.checked == {}
        assert "ledger_pages_corrupt" in {p.kind for p in half.problems}
        assert qualify_store(store, "full", ledger=half) == qualify_store(store, "full")
    finally:
        tf.restore(store, files)


def test_episode_checks_stopped_by_the_ledger_stop_the_check_where_they_did(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    store, files = recorded
    tf.apply(store, tf.blob_changed("episode_digest"), False)  # a problem before the stop
    real = verify._Verifier.recorded_episodes

    def stopped(self: verify._Verifier, *args: object) -> int:
        real(self, *args)
        raise sqlite3.DatabaseError("database disk image is malformed")
    monkeypatch.setattr(verify._Verifier, "recorded_episodes", stopped)
    try:
        half = ledger_half(store, reopened_spec_digest)
        assert half is not None and half.episodes is not None and half.episodes.failed
        reads = load_agm(store).blob_reads
        got = qualify_store(store, "full", reads=reads, ledger=half)
        assert got == qualify_store(store, "full", reads=reads) == qualify_store(store, "full")
        kinds = [p["kind"] for p in got["problems"]]
        assert kinds[-1] == "ledger_pages_corrupt" and "blob_changed" in kinds
    finally:
        tf.restore(store, files)


def test_no_ledger_half_for_an_unsealed_or_missing_ledger(tmp_path: Path) -> None:
    assert _ahead(tmp_path) is None  # no ledger: the check itself says so
    with sqlite3.connect(tmp_path / "ledger.sqlite") as c:
        c.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        c.execute("INSERT INTO meta VALUES ('schema', '1')")
    assert _ahead(tmp_path) is None  # unsealed: the check says so itself


def test_an_audit_ended_early_stops_the_half(recorded: tuple[Path, dict[str, bytes]]) -> None:
    store, _ = recorded
    with pytest.raises(KeyError), LedgerAhead(store) as ahead:
        proc = ahead._proc
        assert proc is not None
        raise KeyError("the import failed")
    assert not proc.is_alive() and proc.exitcode is not None
