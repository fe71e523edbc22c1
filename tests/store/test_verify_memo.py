"""The memo of the cheap store check: reused only while the store and the code are unchanged."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from agentmetrology.archive import evidence_check
from agentmetrology.archive.evidence_check import qualify_store
from agentmetrology.store import verify_memo
from agentmetrology.store.blobs import contents
from archive.agm_fixtures import build_store


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("memo") / "s", name="memo")


@pytest.fixture
def store(recorded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(verify_memo.MEMO_ENV, str(tmp_path / "cache"))
    copy = tmp_path / "store"
    shutil.copytree(recorded, copy)
    return copy


def _no_check(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*a: object, **k: object) -> None:
        raise AssertionError("the check ran")
    monkeypatch.setattr(evidence_check, "verify_store", refuse)


def test_a_hit_returns_the_same_result_without_checking(store: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    first = qualify_store(store, "ledger")
    assert first["result"] == "qualified" and first["checked"]["episodes"] == 24
    _no_check(monkeypatch)
    assert qualify_store(store, "ledger") == first


def test_an_edit_in_place_misses_even_with_its_mtime_restored(store: Path) -> None:
    assert qualify_store(store, "ledger")["result"] == "qualified"
    ledger = store / "ledger.sqlite"
    before = ledger.stat()
    with sqlite3.connect(ledger) as c:
        c.execute("UPDATE assessments SET score = 1.0 WHERE id = 2")
    with sqlite3.connect(ledger) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    os.utime(ledger, ns=(before.st_atime_ns, before.st_mtime_ns))  # touch -d: ctime moves on
    after = qualify_store(store, "ledger")
    assert after["result"] == "invalid_binding" and "row_changed" in after["problem_kinds"]


def test_a_changed_blob_misses(store: Path) -> None:
    assert qualify_store(store, "ledger")["result"] == "qualified"
    with sqlite3.connect(store / "ledger.sqlite") as c:
        digest = c.execute("SELECT episode_digest FROM episodes LIMIT 1").fetchone()[0]
    blob = store / "blobs" / digest[:2] / digest[2:]
    blob.chmod(0o644)
    blob.write_bytes(contents(blob.read_bytes()).replace(b'"termination":{"detail":""',
                                               b'"termination":{"detail":"x"', 1))
    # the bytes are not re-hashed by the cheap check, but the memo is not reused either: the
    # check runs again and reads the blob (here still agreeing with its row)
    key = verify_memo.fingerprint(store)
    assert verify_memo.lookup(store, key, evidence_check.reopened_spec_digest) is None


def test_a_changed_specification_misses(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qualify_store(store, "ledger")
    monkeypatch.setattr(evidence_check, "reopened_spec_digest", lambda e, t, p: "0" * 64)
    after = qualify_store(store, "ledger")
    assert after["result"] == "invalid_binding"
    assert "specification_mismatch" in after["problem_kinds"]


def test_the_full_check_never_uses_the_memo(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qualify_store(store, "ledger")
    calls: list[str] = []
    real = evidence_check.verify_store

    def spy(root: Path, **kw: object) -> object:
        calls.append(str(kw.get("mode")))
        return real(root, **kw)  # type: ignore[arg-type]
    monkeypatch.setattr(evidence_check, "verify_store", spy)
    qualify_store(store, "full")
    qualify_store(store, "ledger")
    assert calls == ["full"]


def test_turned_off_or_unwritable_the_check_just_runs(store: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(verify_memo.MEMO_ENV, "")
    assert verify_memo.memo_dir() is None
    assert qualify_store(store, "ledger")["result"] == "qualified"
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv(verify_memo.MEMO_ENV, str(blocked / "cache"))
    assert qualify_store(store, "ledger")["result"] == "qualified"
    assert qualify_store(store, "ledger")["result"] == "qualified"
