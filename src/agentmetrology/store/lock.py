"""The store's single-writer lock: one `campaign run` writes to a store at a time.

An OS file lock (flock) is released by the kernel when its holder dies, even by `kill -9`, so a
crashed run never leaves a stale lock behind and the next run can safely call every attempt it
finds `started` interrupted.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType


class StoreBusyError(RuntimeError):
    """Raised when another process holds the store's run lock."""


class RunLock:
    """An exclusive, non-blocking lock on `root/run.lock`."""

    def __init__(self, root: Path) -> None:
        self.path = root / "run.lock"
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        """Take the lock or raise StoreBusyError naming the holder's pid."""
        try:
            import fcntl
        except ImportError:  # not POSIX: no kernel-released lock to rely on
            raise StoreBusyError("campaign runs need a POSIX system (fcntl file locks)") from None
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise StoreBusyError(
                f"another campaign run (pid {holder}) is writing to the store at "
                f"{self.path.parent}; wait for it to finish or stop it") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode("ascii"))
        self._fd = fd
        return self

    def release(self) -> None:
        """Release the lock (idempotent)."""
        if self._fd is not None:
            import fcntl

            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()
