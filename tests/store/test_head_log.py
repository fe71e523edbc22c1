"""Rollbacks: the head log beside the ledger, `agm evidence head` and `verify --expect-head`.

A ledger cut back to an earlier, self-consistent state (its write-ahead log removed after a
kill, its last chain entries deleted with their rows) verified before the head log; each test
here shows what now catches it, and what a store without a log (made before it) says.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import store.verify_fixtures as vf
from agentmetrology.store import EvidenceStore
from agentmetrology.store.chain import GENESIS, head
from agentmetrology.store.head_log import HEAD_LOG_FILE, read_log
from agentmetrology.store.verify import verify_store
from agentmetrology.store.verify_heads import NO_HEAD_LOG
from store.verify_fixtures import (  # built_store, store_copy: the built and root fixtures
    built_store,  # noqa: F401
    store_copy,  # noqa: F401
)
from support.agm_runs import run_main

MODES = ("full", "hash-only", "ledger")


def _chain(root: Path) -> tuple[int, str]:
    (length, h), = vf.query(root, "SELECT seq, head FROM chain ORDER BY seq DESC LIMIT 1")
    return int(length), str(h)  # type: ignore[call-overload]


def _kinds(root: Path, mode: str = "full", **kw: object) -> list[str]:
    return [p.kind for p in verify_store(root, mode=mode, **kw).problems]  # type: ignore[arg-type]


def test_every_transaction_appends_its_head(root: Path) -> None:
    log = read_log(root / HEAD_LOG_FILE)
    assert log.exists and not log.bad_lines and not log.torn
    assert log.entries[0] == (0, GENESIS)  # a new ledger starts its log at its creation
    assert log.entries[-1] == _chain(root)
    heads = dict(vf.query(root, "SELECT seq, head FROM chain"))
    assert all(heads[n] == h for n, h in log.entries[1:])
    assert len(log.entries) == 11  # one line per transaction that grew the chain, not per row
    assert vf.query(root, "SELECT value FROM meta WHERE key='head_log'") == [("0",)]


def _unwind_last_transaction(root: Path) -> None:
    """Delete the last chain entry (the run's end) and put its row back as it was before."""
    length, _ = _chain(root)
    vf.execute(root, f"DELETE FROM chain WHERE seq={length}",
               "UPDATE runs SET ended_at=NULL, outcome=NULL WHERE id=1")


def test_deleting_the_last_entries_with_their_rows_is_a_rollback(root: Path) -> None:
    _unwind_last_transaction(root)
    log = root / HEAD_LOG_FILE
    log.rename(root / "aside")  # as a store made before the log: it verified
    vf.execute(root, "DELETE FROM meta WHERE key='head_log'")
    q = verify_store(root)
    assert q.qualified and q.notes == (NO_HEAD_LOG,)
    (root / "aside").rename(log)
    vf.execute(root, "INSERT INTO meta VALUES ('head_log', '0')")
    for mode in MODES:
        q = verify_store(root, mode=mode)
        assert [p.kind for p in q.problems] == ["chain_truncated"]
        assert q.problems[0].detail.startswith("the head log witnessed chain length 27")


def test_removing_the_write_ahead_log_after_a_kill_is_a_rollback(
        built: Path, tmp_path: Path) -> None:
    root = vf.copy(built, tmp_path / "store")
    st = EvidenceStore.open(root, scrub_env=False)
    try:
        st.end_run(st.begin_run("c1", "inline"), "completed")  # committed, still in the WAL
        killed = tmp_path / "killed"
        shutil.copytree(root, killed, ignore=shutil.ignore_patterns("*.lock"))
    finally:
        st.close()
    assert (killed / "ledger.sqlite-wal").stat().st_size > 0
    assert verify_store(killed).qualified  # what a kill leaves: the WAL holds the last commits
    (killed / "ledger.sqlite-wal").unlink()
    assert _kinds(killed) == ["chain_truncated"]


def test_a_rewritten_chain_the_log_witnessed_is_a_mismatch(root: Path) -> None:
    vf.execute(root, "UPDATE runs SET outcome='forged' WHERE id=1",
               "DELETE FROM chain WHERE seq=27")
    vf.reseal(root, rows=(("runs", 1),), append=True)  # the same length, another head
    assert _kinds(root, "hash-only") == ["head_log_mismatch"]


def test_a_missing_or_cut_head_log(root: Path) -> None:
    (root / HEAD_LOG_FILE).unlink()
    q = verify_store(root, mode="ledger")
    assert [(p.kind, p.result) for p in q.problems] == [("head_log_missing", "invalid_binding")]
    lines = vf.query(root, "SELECT seq, head FROM chain WHERE seq > 20")
    (root / HEAD_LOG_FILE).write_text("".join(f"{n} {h}\n" for n, h in lines))
    assert _kinds(root) == ["head_log_missing"]  # its beginning is gone


def test_a_log_behind_the_chain_is_a_note_and_the_next_writer_catches_up(root: Path) -> None:
    path = root / HEAD_LOG_FILE
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]))  # a writer killed between its commit and its line
    q = verify_store(root)
    assert q.qualified and len(q.notes) == 1 and "behind" in q.notes[0]
    with EvidenceStore.open(root, scrub_env=False):
        pass
    assert read_log(path).entries[-1] == _chain(root)
    assert verify_store(root).notes == ()


def test_an_unreadable_line_and_a_torn_last_line(root: Path) -> None:
    path = root / HEAD_LOG_FILE
    text = path.read_text()
    path.write_text(text + "27 partial")
    q = verify_store(root)
    assert q.qualified and "incomplete" in q.notes[0]
    with EvidenceStore.open(root, scrub_env=False) as st:  # the next writer cuts it off
        st.end_run(st.begin_run("c1", "inline"), "completed")
    assert path.read_text().startswith(text) and not read_log(path).torn
    q = verify_store(root)
    assert q.qualified and q.notes == ()
    path.write_text("garbage\n" + text)
    assert "head_log_unreadable" in _kinds(root)


def test_a_store_sealed_before_head_logs_starts_one_at_its_next_writer(root: Path) -> None:
    (root / HEAD_LOG_FILE).unlink()
    vf.execute(root, "DELETE FROM meta WHERE key='head_log'")
    assert verify_store(root).notes == (NO_HEAD_LOG,)
    with EvidenceStore.open(root, scrub_env=False) as st:
        start = head(st.ledger.conn)
    assert read_log(root / HEAD_LOG_FILE).entries == [start]
    assert vf.query(root, "SELECT value FROM meta WHERE key='head_log'") == [(str(start[0]),)]
    q = verify_store(root)
    assert q.qualified and q.notes == ()


# -- the CLI: `agm evidence head` and `verify --expect-head` --------------------------------------

def test_evidence_head_and_expect_head(root: Path) -> None:
    # (hash-only: the hand-built store's task specification digests are not the installed ones)
    res = run_main(["evidence", "head", str(root)])
    assert res.returncode == 0, res.stderr
    length, h = _chain(root)
    assert res.stdout.strip() == f"{length}:{h}"
    res = run_main(["evidence", "head", str(root), "--json"])
    assert json.loads(res.stdout) == {"store": str(root), "length": length, "head": h}
    pinned = f"{length}:{h}"
    verify = ["evidence", "verify", str(root), "--hash-only", "--expect-head"]
    assert run_main([*verify, pinned]).returncode == 0
    # the store grows: the pinned head is still in its chain (a note)
    with EvidenceStore.open(root, scrub_env=False) as st:
        st.end_run(st.begin_run("c1", "inline"), "completed")
    res = run_main([*verify, pinned, "--json"])
    assert res.returncode == 0
    assert "grew by 2 chain entries" in " ".join(json.loads(res.stdout)["notes"])
    # ... a rollback below it, with the head log gone too, is still caught by the pinned head
    vf.execute(root, f"DELETE FROM chain WHERE seq>={length}",
               "DELETE FROM runs WHERE id=2",
               "UPDATE runs SET ended_at=NULL, outcome=NULL WHERE id=1",
               "DELETE FROM meta WHERE key='head_log'")
    (root / HEAD_LOG_FILE).unlink()
    assert verify_store(root).qualified
    res = run_main([*verify, pinned])
    assert res.returncode == 1 and "chain_truncated" in res.stdout
    res = run_main([*verify, f"{length - 1}:{h}"])
    assert res.returncode == 1 and "expected_head_mismatch" in res.stdout


@pytest.mark.parametrize("bad", ["27", "x:y", f"27:{'g' * 64}", f"-1:{'0' * 64}"])
def test_a_malformed_expected_head_is_one_line_exit_2(root: Path, bad: str) -> None:
    res = run_main(["evidence", "verify", str(root), "--hash-only", "--expect-head", bad])
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "LENGTH:HEAD" in res.stderr


def test_evidence_head_of_not_a_store_or_an_unsealed_one_is_exit_2(tmp_path: Path) -> None:
    res = run_main(["evidence", "head", str(tmp_path)])
    assert res.returncode == 2 and "not an evidence store" in res.stderr
    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "pre_plugin_store",
                    tmp_path / "old")
    res = run_main(["evidence", "head", str(tmp_path / "old")])
    assert res.returncode == 2 and "unsealed" in res.stderr


@pytest.mark.parametrize("first_len", [64, 5000, 1 << 20, (1 << 20) + 3])
def test_a_verified_prefix_is_hashed_as_a_stream(tmp_path: Path, first_len: int) -> None:
    """Resumed from a verified prefix, the log reads as before: its first and last lines stand
    for the prefix (however long a line), the lines after it whole, the same size and digest."""
    import hashlib

    good = [f"{n} {hashlib.sha256(str(n).encode()).hexdigest()}".encode() for n in range(1, 300)]
    first = b"x" * first_len  # a bad first line, longer than a read of the prefix if asked
    data = b"\n".join([first, *good[:200], b"y" * 9000, *good[200:250]]) + b"\n"
    prefix = len(data)
    data += b"\n".join(good[250:]) + b"\n" + b"299 torn"
    path = tmp_path / HEAD_LOG_FILE
    path.write_bytes(data)
    full = read_log(path)
    resumed = read_log(path, (prefix, hashlib.sha256(data[:prefix]).hexdigest()))
    assert (resumed.size, resumed.digest, resumed.torn) == (full.size, full.digest, True)
    assert full.digest == hashlib.sha256(data[:data.rfind(b"\n") + 1]).hexdigest()
    last = [int(x.split()[0]) for x in good[249:]]
    assert [n for n, _ in resumed.entries] == last and resumed.bad_lines == [1]
    changed = read_log(path, (prefix, "0" * 64))  # the prefix no longer verified: read whole
    assert (changed.entries, changed.bad_lines) == (full.entries, full.bad_lines)


def test_a_resumed_read_does_not_hold_the_prefix(tmp_path: Path) -> None:
    """A million transactions make a head log of about 110 MB: resumed from a verified
    prefix, a read holds the lines appended since, not the prefix (here 16 MB)."""
    import hashlib
    import tracemalloc

    line = b"%d " + b"a" * 64 + b"\n"
    data = b"".join(line % n for n in range(1, 230_001))
    path = tmp_path / HEAD_LOG_FILE
    path.write_bytes(data + line % 230_001)
    resume = (len(data), hashlib.sha256(data).hexdigest())
    tracemalloc.start()
    log = read_log(path, resume)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [n for n, _ in log.entries] == [1, 230_000, 230_001] and len(data) > 16_000_000
    assert peak < 4_000_000


@pytest.mark.parametrize("kind", ["directory", "named pipe", "link to /dev/zero"])
def test_a_head_log_that_is_not_a_file_is_one_line(root: Path, kind: str) -> None:
    # Before: a directory raised IsADirectoryError out of `campaign status` and `verify`, a link
    # to /dev/zero was read until memory ran out, and a named pipe blocked every reader.
    import os

    log = root / HEAD_LOG_FILE
    log.unlink()
    if kind == "directory":
        log.mkdir()
    elif kind == "named pipe":
        os.mkfifo(log)
    else:
        log.symlink_to("/dev/zero")
    shown = {"directory": "a directory", "named pipe": "a named pipe",
             "link to /dev/zero": "a character device"}[kind]
    line = (f"error: {log} is {shown}, not a file: a store's head log is a regular file; "
            "restore the store from a copy\n")
    for args in (["campaign", "status", "--store", str(root)], ["evidence", "verify", str(root)]):
        res = run_main(args, timeout=60)
        assert (res.returncode, res.stderr) == (2, line)
