"""The store's single-writer lock: one writer (`campaign run`, `serve mcp`, ...) at a time.

An OS file lock (flock) is released by the kernel when its holder dies, even by `kill -9`, so a
crashed run never leaves a stale lock behind and the next writer can safely call every attempt
it finds `started` interrupted.

The store lock is taken on the ledger file itself, not on a side file: deleting a lock file
would let a second writer in, while the ledger cannot be deleted without deleting the store.
After the lock is taken the path is checked to still name the locked file (same device and
inode); if the file was replaced meanwhile, the lock is retaken on the new one. `run.lock` only
notes the holder's pid for the busy message. flock and SQLite's own POSIX byte-range locks are
independent on local file systems (stores on NFS are not supported).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from types import TracebackType

from agentmetrology.records.errors import UserError
from agentmetrology.store.ledger import LedgerError

PID_NOTE = "run.lock"
_RETRIES = 5


class StoreBusyError(LedgerError, RuntimeError, UserError):
    """Raised when another process holds the lock."""


def _flock(path: Path) -> int | None:
    """Return an fd holding an exclusive flock on `path`, or None if another holder has it."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no kernel-released lock to rely on
        raise StoreBusyError("writing to an evidence store needs a POSIX system (fcntl file "
                             "locks)") from None
    for _ in range(_RETRIES):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        try:
            now, held = os.stat(path), os.fstat(fd)
            same = (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # the path was replaced after we opened it: lock what it names now
    raise StoreBusyError(f"{path} keeps being replaced; is another program rewriting it?")


def _release(fd: int) -> None:
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


class RunLock:
    """An exclusive, non-blocking lock on `root/run.lock` (used for per-key session locks)."""

    def __init__(self, root: Path) -> None:
        self.path = root / PID_NOTE
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        """Take the lock or raise StoreBusyError naming the holder's pid."""
        fd = _flock(self.path)
        if fd is None:
            raise StoreBusyError(
                f"another campaign run (pid {_holder(self.path)}) is writing to the store at "
                f"{self.path.parent}; wait for it to finish or stop it")
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode("ascii"))
        self._fd = fd
        return self

    def release(self) -> None:
        """Release the lock (idempotent)."""
        if self._fd is not None:
            _release(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


class StoreLock:
    """The store's writer lock: an exclusive flock on the ledger file, held until released."""

    def __init__(self, root: Path, ledger: Path) -> None:
        self.root, self.ledger = root, ledger
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """Return True while this object holds the lock."""
        return self._fd is not None

    def acquire(self) -> StoreLock:
        """Take the lock or raise StoreBusyError naming the holder's pid."""
        if self._fd is not None:
            return self
        fd = _flock(self.ledger)
        if fd is None:
            raise StoreBusyError(
                f"another writer (pid {_holder(self.root / PID_NOTE)}: a campaign run or an "
                f"`agm serve mcp` session) is writing to the store at {self.root}; wait for it "
                "to finish or stop it")
        self._fd = fd
        # Informational only: the lock is the ledger's flock, never this file.
        with contextlib.suppress(OSError):
            note = self.root / PID_NOTE
            tmp = note.with_name(f".{PID_NOTE}.{os.getpid()}")
            tmp.write_text(str(os.getpid()), encoding="ascii")
            os.replace(tmp, note)
        return self

    def release(self) -> None:
        """Release the lock (idempotent)."""
        if self._fd is not None:
            _release(self._fd)
            self._fd = None


def _holder(note: Path) -> str:
    try:
        return note.read_text(encoding="ascii", errors="replace").strip()[:32] or "unknown"
    except OSError:
        return "unknown"
