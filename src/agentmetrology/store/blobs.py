"""Content-addressed blobs: bytes stored under their sha256, written atomically, never rewritten."""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
from pathlib import Path

from agentmetrology.store.paths import blob_path


class BlobError(Exception):
    """Base class of blob errors."""


class BlobMissingError(BlobError, KeyError):
    """Raised when no blob has the requested digest."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "blob missing"


class BlobCorruptError(BlobError):
    """Raised when a blob's bytes no longer hash to its digest."""


class BlobStore:
    """Blobs under `root/blobs/ab/cdef…`; a blob that exists is never overwritten."""

    def __init__(self, root: Path, *, fsync: bool = False) -> None:
        self.root = root
        # A killed process loses nothing the rename made visible; fsync guards power loss only.
        self.fsync = fsync
        self._base = os.fspath(root / "blobs")
        os.makedirs(self._base, exist_ok=True)
        self._dirs: set[str] = set()  # fan-out directories known to exist
        self._tmp = itertools.count()

    def path(self, digest: str) -> Path:
        """Return the file path of a digest (validated)."""
        return blob_path(self.root, digest)

    def has(self, digest: str) -> bool:
        """Return True when the blob exists."""
        return self.path(digest).is_file()

    def put(self, data: bytes) -> str:
        """Store `data` and return its sha256 hex digest (a no-op if already stored)."""
        digest = hashlib.sha256(data).hexdigest()
        # Plain os.path strings: this runs for every blob of every episode.
        folder = os.path.join(self._base, digest[:2])
        final = os.path.join(folder, digest[2:])
        if os.path.exists(final):
            return digest
        if folder not in self._dirs:
            os.makedirs(folder, exist_ok=True)
            self._dirs.add(folder)
        tmp = os.path.join(folder, f".tmp-{os.getpid()}-{next(self._tmp)}")
        # Created read-only: evidence is never edited in place (the creating fd may still write).
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o444)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if self.fsync:
                os.fsync(fd)
            os.close(fd)
            fd = -1
            # Same content under the same name: if a concurrent writer won, replacing is benign.
            os.replace(tmp, final)
        except BaseException:
            if fd >= 0:
                os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return digest

    def get(self, digest: str) -> bytes:
        """Return the bytes of a blob after checking they still hash to `digest`."""
        path = self.path(digest)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise BlobMissingError(f"blob {digest} is not in the store at {self.root}") from None
        actual = hashlib.sha256(data).hexdigest()
        if actual != digest:
            raise BlobCorruptError(f"blob {digest} is corrupt: its bytes hash to {actual}")
        return data
