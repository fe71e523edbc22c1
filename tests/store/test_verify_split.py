"""A whole check with its ledger half in a forked process (store.verify_split) gives the
qualification the check run in one process gives, byte for byte: intact, every byte and binding
intervention of the tamper study, damaged pages, in the full and the cheap (`ledger`) modes;
the half is really run elsewhere; when it cannot come back the check runs it here; small
stores and checks from a verified head are not split."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import store.tamper_fixtures as tf
from agentmetrology.archive import evidence_check
from agentmetrology.archive.evidence_check import qualify_store
from agentmetrology.store import verify, verify_ahead

STUDY = ([(label, edit, reseal) for _, label, edit, reseal in tf.byte_interventions()]
         + [(label, edit, True) for _, label, edit in tf.binding_interventions()])
MODES = ("full", "ledger")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, bytes]]]:
    store = tf.record_store(tmp_path_factory.mktemp("split"))
    yield store, tf.snapshot(store)


@pytest.fixture(autouse=True)
def no_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every call runs the check (no memo answers, no verified head to start from)."""
    monkeypatch.setenv("AGM_VERIFY_CACHE", "")


def _check(store: Path, mode: str, split: bool, monkeypatch: pytest.MonkeyPatch,
           elsewhere: bool = True) -> str:
    """Return the check's JSON text, split across two processes or not."""
    monkeypatch.setattr(evidence_check, "worth_splitting", lambda root: split)
    if split and elsewhere:  # the ledger half must not run in this process
        here, steps = os.getpid(), verify._Verifier.ledger_steps

        def ledger_steps(self: verify._Verifier, *walked: Any) -> None:
            assert os.getpid() != here, "the ledger half ran in the checking process"
            steps(self, *walked)

        monkeypatch.setattr(verify._Verifier, "ledger_steps", ledger_steps)
    try:
        return json.dumps(qualify_store(store, mode), sort_keys=False)
    finally:
        monkeypatch.undo()
        monkeypatch.setenv("AGM_VERIFY_CACHE", "")


def _same(store: Path, mode: str, monkeypatch: pytest.MonkeyPatch,
          elsewhere: bool = True) -> dict[str, object]:
    text = _check(store, mode, True, monkeypatch, elsewhere)
    assert text == _check(store, mode, False, monkeypatch)  # keys in the same order too
    doc: dict[str, object] = json.loads(text)
    return doc


@pytest.mark.parametrize("mode", MODES)
def test_an_intact_store_is_qualified_the_same(recorded: tuple[Path, dict[str, bytes]],
                                               mode: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _same(recorded[0], mode, monkeypatch)
    assert doc["qualified"] and doc["checked"]["chain_entries"] > 0  # type: ignore[index]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("label, edit, reseal", STUDY, ids=[s[0] for s in STUDY])
def test_a_tampered_store_is_reported_the_same(recorded: tuple[Path, dict[str, bytes]],
                                               label: str, edit: tf.Edit, reseal: bool,
                                               mode: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    store, files = recorded
    tf.apply(store, edit, reseal)
    try:
        doc = _same(store, mode, monkeypatch)
        # (the cheap check reads no blob's bytes: it may miss a blob changed in place)
        assert mode == "ledger" or not doc["qualified"], label
    finally:
        tf.restore(store, files)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("table", ["chain", "episodes"])
def test_damaged_pages_are_reported_the_same(recorded: tuple[Path, dict[str, bytes]], mode: str,
                                             table: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages the ledger half cannot read (the chain), or the blob half (the episodes). A chain
    that no query can read is not split (the check stops at once: nothing to share)."""
    store, files = recorded
    try:
        tf.damage_table(store, table)
        doc = _same(store, mode, monkeypatch, elsewhere=table != "chain")
        assert "ledger_pages_corrupt" in {p["kind"] for p in doc["problems"]}  # type: ignore
    finally:
        tf.restore(store, files)


def test_a_half_that_does_not_come_back_runs_here(recorded: tuple[Path, dict[str, bytes]],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = recorded
    expected = _check(store, "full", False, monkeypatch)
    monkeypatch.setattr(evidence_check, "worth_splitting", lambda root: True)
    monkeypatch.setattr(verify_ahead, "_run", lambda *a: os._exit(3))  # dies without a result
    ran: list[int] = []
    steps = verify._Verifier.ledger_steps
    monkeypatch.setattr(verify._Verifier, "ledger_steps",
                        lambda self, *w: (ran.append(os.getpid()), steps(self, *w))[1])
    assert json.dumps(qualify_store(store, "full")) == expected
    assert ran == [os.getpid()]


def test_a_half_that_ends_after_its_walk_leaves_every_step_here(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The blob half read after the other process's walk is read again after this one's."""
    store, _ = recorded
    expected = _check(store, "ledger", False, monkeypatch)
    monkeypatch.setattr(evidence_check, "worth_splitting", lambda root: True)
    monkeypatch.setattr(verify_ahead, "ledger_half",
                        lambda root, reopen, mode, walked, *rest: (walked(), os._exit(3)))
    blobs = verify._Verifier.blobs
    counted: list[int] = []
    monkeypatch.setattr(verify._Verifier, "blobs", lambda self: (counted.append(1), blobs(self)))
    assert json.dumps(qualify_store(store, "ledger")) == expected
    assert len(counted) == 2  # once beside the half, once after the walk run here


def test_the_blob_half_starts_after_the_chain_walk(recorded: tuple[Path, dict[str, bytes]],
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    """As in one process: the blob and episode queries then see every chain entry the walk
    saw, so the head the check leaves covers only episodes it read (a writer appending
    meanwhile cannot slip an entry under it)."""
    store, _ = recorded
    monkeypatch.setattr(evidence_check, "worth_splitting", lambda root: True)
    here, log = os.getpid(), tmp_path / "times"
    chain, blobs = verify._Verifier.chain, verify._Verifier.blobs

    def slow_chain(self: verify._Verifier) -> tuple[int, str]:
        time.sleep(0.3)  # a long walk: the blob half must still wait for its end
        at = chain(self)
        with open(log, "a") as f:
            f.write(f"walked {time.monotonic()}\n")
        return at

    def timed_blobs(self: verify._Verifier) -> None:
        if os.getpid() == here:
            with open(log, "a") as f:
                f.write(f"blobs {time.monotonic()}\n")
        blobs(self)

    monkeypatch.setattr(verify._Verifier, "chain", slow_chain)
    monkeypatch.setattr(verify._Verifier, "blobs", timed_blobs)
    assert qualify_store(store, "ledger")["qualified"]
    times = dict(line.split() for line in log.read_text().splitlines())
    assert float(times["blobs"]) > float(times["walked"])


def test_small_stores_and_incremental_checks_are_not_split(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    store, _ = recorded
    # (this process's other threads are counted as one: an earlier test may have left some)
    threads = [1]
    monkeypatch.setattr(verify_ahead.threading, "active_count", lambda: threads[0])
    assert not verify_ahead.worth_splitting(store)  # far below SPLIT_FROM chain entries
    assert not verify_ahead.worth_splitting(tmp_path)  # no ledger: the check says so itself
    monkeypatch.setattr(verify_ahead, "SPLIT_FROM", 0)
    assert verify_ahead.worth_splitting(store)
    monkeypatch.setenv("AGM_CHECK_SPLIT", "0")  # one process asked for
    assert not verify_ahead.worth_splitting(store)
    monkeypatch.delenv("AGM_CHECK_SPLIT")
    threads[0] = 2  # a server's thread beside this one: no fork from here
    assert not verify_ahead.worth_splitting(store)
    threads[0] = 1
    assert verify_ahead.worth_splitting(store)
    monkeypatch.setenv("AGM_VERIFY_CACHE", str(tmp_path / "cache"))
    first = qualify_store(store, "full", incremental=True)  # whole (split): leaves its head
    monkeypatch.setattr(verify_ahead.LedgerAhead, "__enter__",
                        lambda self: pytest.fail("a check from a verified head was split"))
    again = qualify_store(store, "full", incremental=True)
    assert first["qualified"] and again["qualified"] and again["incremental_since"]


def test_a_process_with_another_thread_does_not_split(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The count is the threading module's own: a thread started here is counted."""
    monkeypatch.setattr(verify_ahead, "SPLIT_FROM", 0)
    busy = threading.Event()
    other = threading.Thread(target=busy.wait)
    other.start()
    try:
        assert not verify_ahead.worth_splitting(recorded[0])
    finally:
        busy.set()
        other.join()
