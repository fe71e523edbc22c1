"""The memo of the cheap store check: reused only while the store and the code are unchanged."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from agentmetrology.archive import evidence_check
from agentmetrology.archive.evidence_check import qualify_store
from agentmetrology.store import EvidenceStore, verify_memo
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


def _first_blob(store: Path) -> Path:
    with sqlite3.connect(store / "ledger.sqlite") as c:
        digest = c.execute("SELECT episode_digest FROM episodes LIMIT 1").fetchone()[0]
    return store / "blobs" / digest[:2] / digest[2:]


def _miss(store: Path) -> bool:
    key = verify_memo.fingerprint(store)
    return verify_memo.lookup(store, key, evidence_check.reopened_spec_digest) is None


def test_a_blob_replaced_removed_or_added_misses(store: Path) -> None:
    assert qualify_store(store, "ledger")["result"] == "qualified" and not _miss(store)
    blob = _first_blob(store)
    tmp = blob.with_name(".edited")
    tmp.write_bytes(contents(blob.read_bytes()).replace(b'"termination":{"detail":""',
                                                        b'"termination":{"detail":"x"', 1))
    os.replace(tmp, blob)  # saved over it by a rename, as the store and editors write
    # the bytes are not re-hashed by the cheap check, but the memo is not reused either: the
    # check runs again and reads the blob (here still agreeing with its row)
    assert _miss(store)
    assert qualify_store(store, "ledger")["result"] == "qualified" and not _miss(store)
    blob.unlink()
    assert _miss(store)
    assert qualify_store(store, "ledger")["result"] == "unavailable" and not _miss(store)
    (blob.parent / ("0" * 62)).write_bytes(b"{}")  # a stray file beside the blobs
    assert _miss(store)


def test_a_blob_edited_in_place_is_left_to_the_checks_that_read_it(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The memo keys on blob folders, not files: bytes written into an existing blob file
    (after a chmod: blob files are read-only) do not miss. The full check re-hashes it, and the
    ledger check run without the memo (--full-check, a miss) reads the fields it changed."""
    assert qualify_store(store, "ledger")["result"] == "qualified"
    blob = _first_blob(store)
    plain = contents(blob.read_bytes())
    assert plain.count(b'"tool_calls":') == 1
    edited = plain.replace(b'"tool_calls":', b'"tool_calls":1', 1)  # N calls -> 1N calls
    blob.chmod(0o644)
    blob.write_bytes(edited)  # in place: same inode, its folder untouched
    assert not _miss(store)  # documented: the warm memo does not see it
    full = qualify_store(store, "full")
    assert full["result"] == "invalid_binding" and "blob_changed" in full["problem_kinds"]
    monkeypatch.setenv(verify_memo.MEMO_ENV, "")  # the ledger check itself, as on a miss
    cheap = qualify_store(store, "ledger")
    assert cheap["result"] == "invalid_binding"
    assert "row_disagrees_with_evidence" in cheap["problem_kinds"]


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
    for off in ("0", "off", "No", "false", " none "):  # "0" made a folder named 0 in the cwd
        monkeypatch.setenv(verify_memo.MEMO_ENV, off)
        assert verify_memo.memo_dir() is None, off
    monkeypatch.setenv(verify_memo.MEMO_ENV, "")
    assert qualify_store(store, "ledger")["result"] == "qualified"
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv(verify_memo.MEMO_ENV, str(blocked / "cache"))
    assert qualify_store(store, "ledger")["result"] == "qualified"
    assert qualify_store(store, "ledger")["result"] == "qualified"


def test_a_writer_closed_beside_an_open_reader_leaves_the_memo_valid(store: Path) -> None:
    """A reader left open elsewhere (a viewer) keeps SQLite from emptying the write-ahead log
    at the writer's close; a full log is in the fingerprint, and SQLite run as root re-owns it
    at every open (its ctime moves): the writer empties it itself, so the memo still hits."""
    reader = sqlite3.connect(f"file:{store / 'ledger.sqlite'}?mode=ro", uri=True)
    try:
        reader.execute("SELECT COUNT(*) FROM episodes").fetchone()  # open, idle
        build_store(store, name="second")  # a writer appends and closes
        wal = store / "ledger.sqlite-wal"
        assert not wal.exists() or wal.stat().st_size == 0
        assert qualify_store(store, "ledger")["result"] == "qualified"
        assert not _miss(store)
        with EvidenceStore.open_readonly(store) as st:  # another reader opens and closes
            assert st.ledger.campaign("second") is not None
        assert not _miss(store)
    finally:
        reader.close()
