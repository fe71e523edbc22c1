"""The head log: an append-only witness of the chain's head, kept beside the ledger.

The chain makes an edit visible, but not a rollback: a ledger cut back to an earlier state
(its write-ahead log removed after a kill, the last entries deleted with their rows) is an
earlier, self-consistent chain. So after every transaction that grows the chain the writer
appends one receipt line `LENGTH HEAD` to `ledger.heads` (opened once, O_APPEND, one write per
transaction; fsynced only when the store fsyncs its blobs, which is the ledger's own
durability: SQLite's NORMAL sync in WAL mode). The ledger's `meta` row `head_log` records the
chain length at which the log started, and the log's first line is that length's head.

Verification then holds the chain against the log: a logged length the chain no longer
reaches is a rollback (`chain_truncated`), a logged head the chain no longer has at that
length is a rewrite (`head_log_mismatch`), a log whose first line is not where the ledger
started it, or that is gone, lost its evidence (`head_log_missing`). A log behind the chain
(a writer stopped between its commit and its line; the next writer adds the head) and a store
made before head logs (no `head_log` row, no file) are notes: then truncation of what the log
has not witnessed cannot be detected. Someone who rewrites the ledger and the log together
is not caught by this (nor by any check made on the store alone): pin a head elsewhere
(`agm evidence head`, `verify --expect-head`, the head a report records).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from agentmetrology.edges.files import file_kind
from agentmetrology.store.chain import GENESIS, head
from agentmetrology.store.errors import StoreError

HEAD_LOG_FILE = "ledger.heads"
HEAD_LOG_META = "head_log"  # the chain length at which the log started
_HEX = frozenset("0123456789abcdef")
_LINE = 86  # a line's most bytes: a length of up to 20 digits, a space, 64 digits, a newline


def _exists(path: Path) -> bool:
    """Return whether the head log exists; StoreError when it is not a regular file: a
    directory raised IsADirectoryError out of `agm campaign status`, a link to /dev/zero was
    read until memory ran out, and a named pipe would block its reader or writer."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return False
    except OSError as exc:  # a link loop, a component that is a file
        raise StoreError(f"{path}: the head log cannot be read ({exc.strerror or exc}); "
                         "restore the store from a copy") from None
    if not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else file_kind(mode)
        raise StoreError(f"{path} is {kind}, not a file: a store's head log is a regular "
                         "file; restore the store from a copy")
    return True


def log_path(ledger_path: Path) -> Path:
    """Return the head log's path beside a ledger file."""
    return ledger_path.with_name(HEAD_LOG_FILE)


class HeadLog:
    """The writer's side: appends the chain head after each transaction that grew it."""

    def __init__(self, path: Path, length: int, fsync: bool = False) -> None:
        self.path, self.fsync, self.length = path, fsync, length
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    @classmethod
    def open(cls, c: sqlite3.Connection, ledger_path: Path, fsync: bool = False) -> HeadLog:
        """Open (or start) the log of a sealed ledger; catch up a log behind the chain.

        Call inside a write transaction (starting a log records where it started in `meta`).
        """
        path = log_path(ledger_path)
        if _exists(path):
            _drop_torn_line(path)
        length, now = head(c)
        row = c.execute("SELECT value FROM meta WHERE key=?", (HEAD_LOG_META,)).fetchone()
        log = cls(path, length, fsync)
        if row is None:  # a store sealed before head logs: witnessed from now on
            c.execute("INSERT INTO meta VALUES (?, ?)", (HEAD_LOG_META, str(length)))
            log.write(length, now)
            return log
        last = last_entry(path)
        # Only a log that is a prefix of the chain is caught up: a log ahead of the chain or
        # disagreeing with it is left as it is, for verification to name.
        if last is not None and last[0] < length and _head_at(c, last[0]) == last[1]:
            log.write(length, now)
        return log

    def write(self, length: int, h: str) -> None:
        """Append one receipt line."""
        os.write(self.fd, f"{length} {h}\n".encode("ascii"))
        if self.fsync:
            os.fsync(self.fd)
        self.length = length

    def after_commit(self, c: sqlite3.Connection) -> None:
        """Append the chain's head when the transaction just committed grew the chain."""
        length, h = head(c)
        if length > self.length:
            self.write(length, h)

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def last_entry(path: Path) -> tuple[int, str] | None:
    """Return the last complete entry of a head log (its tail only), None if none is readable."""
    if not _exists(path):
        return None
    try:
        with open(path, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - 4 * _LINE))
            tail = f.read()
    except FileNotFoundError:
        return None
    lines = tail.split(b"\n")[1 if size > 4 * _LINE else 0:-1]  # whole lines only
    entries = _parse(lines).entries if lines else []
    return entries[-1] if entries else None


def _drop_torn_line(path: Path) -> None:
    """Cut a last line left without its newline (a write cut short), so appends stay lines.

    It witnesses nothing (verification does not read it either); every whole line stays.
    """
    try:
        with open(path, "rb+") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - 4 * _LINE))
            tail = f.read()
            if tail and not tail.endswith(b"\n"):
                cut = tail.rfind(b"\n")
                if cut >= 0 or size <= 4 * _LINE:
                    f.truncate(size - len(tail) + cut + 1)
    except FileNotFoundError:
        return


def _head_at(c: sqlite3.Connection, length: int) -> str | None:
    if length == 0:
        return GENESIS
    row = c.execute("SELECT head FROM chain WHERE seq=?", (length,)).fetchone()
    return None if row is None else str(row[0])


@dataclass(slots=True)
class LogRead:
    """A head log as read: its entries, and what in it could not be read."""

    exists: bool
    entries: list[tuple[int, str]] = field(default_factory=list)
    bad_lines: list[int] = field(default_factory=list)  # 1-based line numbers
    torn: bool = False  # a last line without its newline (a write cut by a kill)
    size: int = 0  # the bytes of its whole lines, and their sha256 (where a later read resumes)
    digest: str = ""


def read_log(path: Path, resume: tuple[int, str] | None = None) -> LogRead:
    """Return the entries of a head log (exists=False when there is none).

    `resume` = (size, digest) of a prefix read and verified before: when the log still starts
    with those bytes, only its first and last entries are parsed again (the lines between are
    unchanged), with every line after; otherwise the whole log is. The prefix is hashed as a
    stream, never held: a million transactions make a log of about 110 MB.
    """
    if not _exists(path):
        return LogRead(False)
    try:
        f = path.open("rb")
    except FileNotFoundError:
        return LogRead(False)
    with f:
        size, digest = resume or (0, "")
        prefix = _prefix(f, size, digest) if size > 0 else None
        if prefix is None:  # no verified prefix, or the log no longer starts with it
            f.seek(0)
            data = f.read()
            end = data.rfind(b"\n") + 1
            lines = data.split(b"\n")
            whole = hashlib.sha256(memoryview(data)[:end]).hexdigest()
        else:
            h, first, last = prefix
            rest = f.read()  # what was appended since: small
            end_rest = rest.rfind(b"\n") + 1
            h.update(memoryview(rest)[:end_rest])
            whole = h.hexdigest()
            lines = [first] + ([last] if last != first else []) + rest.split(b"\n")
    torn = lines.pop() != b""  # what follows the last newline: nothing, or a cut line
    out = _parse(lines)
    out.torn, out.size, out.digest = torn, (end if prefix is None else size + end_rest), whole
    return out


def _prefix(f: BinaryIO, size: int, digest: str) -> tuple[Any, bytes, bytes] | None:
    """Return (the running sha256, first line, last line) of the log's first `size` bytes when
    they hash to `digest` and end a line, else None."""
    h = hashlib.sha256()
    first: bytes | None = None
    left = size
    while left > 0:
        chunk = f.read(min(left, 1 << 20))
        if not chunk:
            return None  # the log is shorter than the prefix
        if first is None:
            first = chunk.split(b"\n", 1)[0]  # a line longer than a chunk: see below
        h.update(chunk)
        left -= len(chunk)
    if h.hexdigest() != digest:
        return None
    window = 4096
    while True:  # the last line of the prefix, read back from its end
        f.seek(max(0, size - window))
        tail = f.read(min(size, window))
        at = tail.rfind(b"\n", 0, len(tail) - 1)
        if at >= 0 or window >= size:
            break
        window *= 2
    last = tail[at + 1:len(tail) - 1]
    if first is None or len(first) >= min(size, 1 << 20) - 1:  # it filled the first chunk
        f.seek(0)
        first = f.read(size).split(b"\n", 1)[0]
    f.seek(size)
    return h, first, last


def _parse(lines: list[bytes]) -> LogRead:
    """Return the entries of complete log lines (numbered from 1)."""
    out = LogRead(True)
    for i, line in enumerate(lines, 1):
        parts = line.split(b" ")
        text = parts[1].decode("ascii", "replace") if len(parts) == 2 else ""
        if len(parts) != 2 or not parts[0].isdigit() or len(text) != 64 or set(text) - _HEX:
            out.bad_lines.append(i)
            continue
        length = int(parts[0])
        if out.entries and length <= out.entries[-1][0]:
            out.bad_lines.append(i)  # an append-only log only grows
            continue
        out.entries.append((length, text))
    return out


def was_chained(c: sqlite3.Connection, ledger_path: Path) -> bool:
    """Return True when a ledger shows it kept a chain: chain entries, a head log, its row."""
    try:
        if c.execute("SELECT 1 FROM chain LIMIT 1").fetchone() is not None:
            return True
    except sqlite3.OperationalError:
        pass  # an older layout: no chain table
    try:
        if c.execute("SELECT 1 FROM meta WHERE key=?", (HEAD_LOG_META,)).fetchone():
            return True
    except sqlite3.OperationalError:
        pass
    log = read_log(log_path(ledger_path))
    return any(length > 0 for length, _ in log.entries)
