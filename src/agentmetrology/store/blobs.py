"""Content-addressed blobs: bytes stored under their sha256, written atomically, never rewritten.

A blob's name is the sha256 of its contents (the canonical bytes); its file holds them
compressed: `MAGIC` then a zlib stream (a JSON episode shrinks about 8x, so a store of a
million episodes fits on a disk). Files written before compression (the contents as they are)
stay readable unchanged, and so does a blob compression would not shrink. Which one a file is,
the digest decides: a file is the blob of `d` when its contents hash to `d`, whether read
inflated or as stored, so a legacy blob that happens to begin with `MAGIC` is still read right.
A compressed file never inflates past `MAX_INFLATED` bytes (a hostile file is a corrupt blob,
never an out-of-memory): larger blobs are written as they are.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import os
import stat
import zlib
from pathlib import Path

from agentmetrology.store.paths import blob_path, check_digest

MAGIC = b"\x00agmz\x01"  # never the start of canonical JSON (which never holds a NUL byte)
MAX_INFLATED = 64 * 1024 * 1024  # the largest blob written compressed, and read inflated
LEVEL = 3  # zlib level: measured as fast as level 1 on episode blobs, and smaller


class BlobError(Exception):
    """Base class of blob errors."""


class BlobMissingError(BlobError, KeyError):
    """Raised when no blob has the requested digest."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "blob missing"


class BlobCorruptError(BlobError):
    """Raised when a blob's bytes no longer hash to its digest."""


def pack(data: bytes) -> bytes:
    """Return the file bytes of a blob: compressed with `MAGIC`, or as they are when that
    would not be smaller (or the blob is larger than `MAX_INFLATED`)."""
    if len(data) > MAX_INFLATED:
        return data
    packed = MAGIC + zlib.compress(data, LEVEL)
    return packed if len(packed) < len(data) else data


def inflate(raw: bytes) -> bytes | None:
    """Return the contents of a compressed file, None when `raw` is not one (no `MAGIC`).

    Raises BlobCorruptError when the stream is broken or inflates past `MAX_INFLATED`.
    """
    if not raw.startswith(MAGIC):
        return None
    z = zlib.decompressobj()
    try:
        out = z.decompress(memoryview(raw)[len(MAGIC):], MAX_INFLATED)
        if z.unconsumed_tail:
            raise BlobCorruptError(f"its compressed stream inflates past {MAX_INFLATED:,} bytes "
                                   "(the most a blob is written compressed)")
        if not z.eof or z.unused_data:
            raise BlobCorruptError("its compressed stream is truncated or has bytes "
                                   "after its end")
    except zlib.error as exc:
        raise BlobCorruptError(f"its compressed stream is broken: {exc}") from None
    return out


def contents(raw: bytes) -> bytes:
    """Return a blob file's contents without checking them against a digest (inflated when
    compressed; BlobCorruptError on a broken stream). Use `unpack` where the digest is known."""
    out = inflate(raw)
    return raw if out is None else out


def unpack(raw: bytes, digest: str) -> bytes:
    """Return the contents of the file `raw` of blob `digest`, checked to hash to it.

    Raises BlobCorruptError (saying what they hash to) when neither the inflated contents nor
    the bytes as stored (a legacy file) hash to `digest`.
    """
    out, problem = resolve(raw, digest)
    if out is None:
        raise BlobCorruptError(f"blob {digest} is corrupt: {problem}")
    return out


def problem(raw: bytes, digest: str) -> str | None:
    """Return why the file `raw` is not blob `digest` ("its bytes now hash to …"), or None."""
    return resolve(raw, digest)[1] or None


def resolve(raw: bytes, digest: str) -> tuple[bytes | None, str]:
    """Return (the contents, "") when the file `raw` is blob `digest`, else (None, why)."""
    try:
        out = inflate(raw)
    except BlobCorruptError as exc:
        out, why = None, str(exc)
    else:
        stored = raw if out is None else out
        actual = hashlib.sha256(stored).hexdigest()
        if actual == digest:
            return stored, ""
        why = f"its bytes now hash to {actual[:12]}"
    legacy = out is not None or raw.startswith(MAGIC)  # a file as stored beginning with MAGIC
    if legacy and hashlib.sha256(raw).hexdigest() == digest:
        return raw, ""
    return None, why


def read_regular(path: str | Path) -> bytes:
    """Return a blob file's bytes; BlobCorruptError when it is a link or not a regular file (a
    link to /dev/zero was read until memory ran out, a named pipe blocked its reader)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise BlobCorruptError(f"{path} is a symbolic link, not a file of the store") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise BlobCorruptError(f"{path} is not a regular file")
        return _read_all(fd, info.st_size)
    finally:
        os.close(fd)


# Linux reads at most this much in one call: a shorter read than asked means the end of a
# regular file only below it.
_ONE_READ_MAX = 0x7FFFF000


def _read_all(fd: int, size: int) -> bytes:
    """Return the rest of regular file `fd` of `size` bytes at its last fstat.

    One read of size + 1 bytes gets the usual blob whole and shows it ended (a regular file
    reads short only at its end): a store read reads every blob, and a buffered file object
    (an isatty, a seek, a second fstat, a second read) cost a third of the read of one.
    A file that grew, or one too large for one read, is read on until a read returns nothing.
    """
    data = os.read(fd, size + 1)
    if len(data) <= size and size < _ONE_READ_MAX:
        return data
    parts = [data]
    while chunk := os.read(fd, 1 << 20):
        parts.append(chunk)
    return b"".join(parts)


def read_blob_file(path: str | Path, digest: str) -> bytes:
    """Return the checked contents of the blob file at `path` (OSError when unreadable,
    BlobCorruptError when they do not hash to `digest` or it is no regular file)."""
    return unpack(read_regular(path), digest)


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
        packed = pack(data)
        # Created read-only: evidence is never edited in place (the creating fd may still write).
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o444)
        try:
            view = memoryview(packed)
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
        out, why = self.read(digest)
        if out is None:
            raise BlobCorruptError(f"blob {digest} is corrupt: {why}")
        return out

    def read(self, digest: str) -> tuple[bytes | None, str]:
        """Return `resolve` of the blob's file: (its contents, "") when they hash to `digest`,
        else (None, why); BlobMissingError when there is no such file."""
        check_digest(digest)
        # A plain string path: pathlib's joins were a tenth of an archive import's own time.
        path = os.path.join(self._base, digest[:2], digest[2:])
        try:
            raw = read_regular(path)
        except FileNotFoundError:
            raise BlobMissingError(f"blob {digest} is not in the store at {self.root}") from None
        except BlobCorruptError as exc:
            return None, str(exc)
        return resolve(raw, digest)
