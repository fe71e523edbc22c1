"""One writer per store, whoever writes; the lock survives deleting its pid note."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentmetrology.store import (
    EvidenceStore,
    StoreBusyError,
    StoreReadOnlyError,
)
from support.stores import register

HOLD = """
import sys, time
from agentmetrology.store import EvidenceStore
st = EvidenceStore.open(sys.argv[1], scrub_env=False)
print("held", flush=True)
sys.stdin.read()  # hold the lock until the test closes our stdin
st.close()
"""


def test_deleting_the_lock_note_does_not_let_a_second_writer_in(tmp_path: Path) -> None:
    root = tmp_path / "s"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(root)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        note = root / "run.lock"
        assert note.read_text() == str(holder.pid)
        note.unlink()  # what used to let a second `campaign run` in
        with pytest.raises(StoreBusyError, match=r"another writer \(pid unknown"):
            EvidenceStore.open(root, scrub_env=False)
        with EvidenceStore.open_readonly(root) as reader:  # readers never wait for writers
            assert reader.campaigns() == []
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    EvidenceStore.open(root, scrub_env=False).close()  # released when the holder closed


def test_every_writer_holds_the_lock_and_readers_cannot_write(tmp_path: Path) -> None:
    root = tmp_path / "s"
    with EvidenceStore.open(root, scrub_env=False) as st:
        register(st, 1)
        with pytest.raises(StoreBusyError):
            EvidenceStore.open(root, create=True, scrub_env=False)
        with EvidenceStore.open(root, create=False, scrub_env=False) as reader:
            assert reader.campaigns() == ["c1"] and not reader.writable
            (adm,) = reader.pending("c1")
            for write in (lambda: reader.put_bytes(b"x"), lambda: reader.recover(),
                          lambda: reader.start_attempt(adm, None, "inline"), reader.lock):
                with pytest.raises(StoreReadOnlyError, match="read-only"):
                    write()
    with EvidenceStore.open(root, create=False, write=True, scrub_env=False) as again:
        assert again.recover() == 0
