"""Reading files users hand in, bounded: regular files only, sizes and line lengths capped.

A named pipe given as a file would block until a writer comes, a device need never end, and a
multi-gigabyte file with no line break is read whole by `for line in fh`. Every reader of a
user's file opens it through `open_regular` (checked on the open descriptor, non-blocking, so a
pipe is refused at once and nothing can swap the file in between) and reads lines through
`bounded_lines`, which never holds more than the line limit of one line.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from agentmetrology.records.errors import UserError

_KINDS = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
_SKIP_CHUNK = 1 << 20  # bytes read at a time while skipping the rest of an over-long line


class FileRefused(UserError):
    """A path that is not a regular file, cannot be opened, or is larger than its limit."""


def resolved(path: Path) -> Path:
    """Return `path` with `~` expanded and every link followed; FileRefused for a path that
    cannot be (a symbolic link loop: Python 3.11 raises RuntimeError there, not OSError)."""
    try:
        return path.expanduser().resolve()
    except RuntimeError as exc:
        raise FileRefused(f"{path}: a symbolic link loop (no file at its end)") from exc
    except OSError as exc:
        raise FileRefused(f"{path}: cannot be resolved ({exc.strerror or exc})") from exc


def file_kind(mode: int) -> str:
    """Return what a file that is not a regular file is, e.g. 'a named pipe'."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def path_kind(path: Path) -> str:
    """Return what `path` is, for a message: 'a directory', 'a file', 'a named pipe', ...,
    'a symbolic link to nothing (TARGET)', or 'missing'."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return f"a symbolic link to nothing ({os.readlink(path)})" if path.is_symlink() \
            else "missing"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "a file" if stat.S_ISREG(mode) else file_kind(mode)


def blocking_path(out: Path) -> tuple[Path, str] | None:
    """Return the first of `out`'s folders (from the top), or `out` itself, that exists and is
    not a directory, with what it is (`path_kind`); None when nothing in the way is seen (a
    name that cannot be looked at is left to mkdir, which says why)."""
    for p in (*reversed(out.parents), out):  # from the top: below a file, stat fails
        try:
            kind = path_kind(p)
        except OSError:
            return None
        if kind == "missing":
            return None
        if kind != "a directory":
            return p, kind
    return None


def refuse_non_directory(out: Path) -> None:
    """Raise UserError, before anything is rendered or written (`agm diagnose` asks before
    its judge's paid calls), when `out` (or a folder above it) exists and is not a directory:
    mkdir would say only "File exists" (or "Not a directory")."""
    found = blocking_path(out)
    if found is not None:
        p, kind = found
        where = f"--out {out}" if p == out else f"--out {out}: {p}"
        raise UserError(f"{where} is {kind}: give a directory")


def open_regular(path: str | Path, max_bytes: int | None = None, *,
                 follow: bool = True) -> BinaryIO:
    """Open `path` for binary reading; FileRefused unless a regular file of at most max_bytes.

    With `follow=False` a symbolic link at `path` is refused too (on the open itself, so a link
    swapped in after a check is caught). A path that cannot be opened, and a directory, raise
    the OSError `open` would raise.
    """
    p = Path(path)
    nofollow = 0 if follow else getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | nofollow)
    except OSError as exc:
        if nofollow and exc.errno == errno.ELOOP:  # what O_NOFOLLOW says of a link
            raise FileRefused(f"{p}: is a symbolic link, not a regular file") from None
        raise
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):  # before fdopen, which refuses a directory by its fd number
        os.close(fd)
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(p))
    binary = os.fdopen(fd, "rb")
    if not stat.S_ISREG(info.st_mode):
        binary.close()
        raise FileRefused(f"{p}: is {file_kind(info.st_mode)}, not a regular file; "
                          "save it to a file first")
    if max_bytes is not None and info.st_size > max_bytes:
        binary.close()
        raise FileRefused(f"{p}: {info.st_size:,} bytes is above the limit of {max_bytes:,} "
                          "bytes for this kind of file")
    return binary


def read_bytes(path: str | Path, max_bytes: int) -> bytes:
    """Return a regular file's bytes; FileRefused when it is not one or is over max_bytes
    (OSError passes through as `Path.read_bytes` raises it)."""
    with open_regular(path, max_bytes) as fh:
        raw = fh.read(max_bytes + 1)  # the file may have grown since it was checked
    if len(raw) > max_bytes:
        raise FileRefused(f"{path}: more than {max_bytes:,} bytes, the limit for this kind "
                          "of file")
    return raw


def read_text(path: str | Path, max_bytes: int) -> str:
    """Return a regular UTF-8 file's text; FileRefused when it is not one or is over max_bytes.

    OSError and UnicodeDecodeError pass through as `Path.read_text` raises them.
    """
    return read_bytes(path, max_bytes).decode("utf-8")


def bounded_lines(fh: BinaryIO, max_line: int) -> Iterator[bytes | None]:
    """Yield each line of `fh` (with its newline), or None for a line over max_line bytes.

    An over-long line is skipped in chunks, never held whole, so the next line is still read.
    """
    while True:
        line = fh.readline(max_line + 1)
        if not line:
            return
        if len(line) <= max_line or (line.endswith(b"\n") and len(line) == max_line + 1):
            yield line
            continue
        while not line.endswith(b"\n"):
            line = fh.readline(_SKIP_CHUNK)
            if not line:
                break
        yield None
