"""Read a results table (CSV, TSV, JSON Lines, JSON array, or Parquet) from a file or stdin.

Only a regular file is opened for reading (a named pipe would block, a device need never end),
its size is checked against MAX_FILE_BYTES before a byte is read, and text formats are read
as UTF-8 one capped line at a time where the format allows (see parsing.py). Parquet needs the
optional dependency pyarrow, imported only when a Parquet file is read.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

from agentmetrology.results import limits
from agentmetrology.results.errors import TableError
from agentmetrology.results.parsing import (
    Rows,
    not_utf8,
    parse_csv,
    parse_json_array,
    parse_jsonl,
)
from agentmetrology.results.table import ResultsTable

_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_KINDS = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
_SNIFF_CHUNK = 65536  # characters read at a time while looking for the first non-blank one


def read_results(
    path: str | Path,
    *,
    max_file_bytes: int | None = None,
    max_line_chars: int | None = None,
) -> ResultsTable:
    """Read a results file (format from its suffix, else sniffed); '-' reads stdin.

    The limits default to limits.MAX_FILE_BYTES and limits.MAX_LINE_CHARS.
    """
    max_bytes = limits.MAX_FILE_BYTES if max_file_bytes is None else max_file_bytes
    max_chars = limits.MAX_LINE_CHARS if max_line_chars is None else max_line_chars
    if str(path) == "-":
        with _stdin_bytes(max_bytes) as binary:
            return _read_text(binary, "<stdin>", None, max_chars)
    p = Path(path)
    fmt = _SUFFIXES.get(p.suffix.lower())
    with _open_regular(p, max_bytes) as binary:
        if fmt != "parquet":
            return _read_text(binary, str(p), fmt, max_chars)
    return _read_parquet(p)


def _kind(mode: int) -> str:
    """Return what a file that is not a regular file is, e.g. 'a named pipe'."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _open_regular(p: Path, max_bytes: int) -> BinaryIO:
    """Open `p` for reading in binary, refusing anything but a regular file within max_bytes.

    The file is opened non-blocking and checked on the open descriptor, so a named pipe is
    refused at once instead of waiting for a writer, and nothing can swap the file in between.
    """
    if not p.exists():
        raise TableError(f"{p}: no such file")
    if p.is_dir():
        raise TableError(f"{p}: is a directory, not a results file")
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise TableError(f"{p}: cannot read ({exc.strerror or exc})") from None
    binary = os.fdopen(fd, "rb")
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        binary.close()
        raise TableError(
            f"{p}: is {_kind(info.st_mode)}, not a regular file; save the results to a "
            "file first, or pipe them to stdin with -"
        )
    if info.st_size > max_bytes:
        binary.close()
        raise TableError(
            f"{p}: {info.st_size:,} bytes is above the limit of {max_bytes:,} bytes for a "
            "results table; split the file, or aggregate its rows first"
        )
    return binary


def _stdin_bytes(max_bytes: int) -> BinaryIO:
    """Return stdin's bytes (at most max_bytes, else refused) as a seekable binary stream."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        data = buffer.read(max_bytes + 1)
    else:  # a text-only stdin (e.g. replaced by a test harness)
        data = sys.stdin.read(max_bytes + 1).encode("utf-8", "surrogateescape")
    if len(data) > max_bytes:
        raise TableError(
            f"<stdin>: more than {max_bytes:,} bytes, the limit for a results table; "
            "split the input, or aggregate its rows first"
        )
    return io.BytesIO(data)


def _text(binary: BinaryIO) -> io.TextIOWrapper:
    """Return a UTF-8 text view of `binary` from its start (BOM dropped, line ends kept)."""
    binary.seek(0)
    return io.TextIOWrapper(binary, encoding="utf-8-sig", newline="")


def _first_char(binary: BinaryIO, source: str) -> str:
    """Return the first non-whitespace character of the text ('' if none), in bounded reads."""
    stream = _text(binary)
    try:
        while chunk := stream.read(_SNIFF_CHUNK):
            if chunk.strip():
                return chunk.lstrip()[:1]
    except UnicodeDecodeError:
        raise not_utf8(source) from None
    finally:
        stream.detach()  # keep `binary` open for the parse
    return ""


def _read_text(binary: BinaryIO, source: str, fmt: str | None, max_chars: int) -> ResultsTable:
    """Parse text as the given format, or sniff JSON vs CSV from its first character."""
    if fmt in (None, "json"):
        first = _first_char(binary, source)
        if fmt is None:
            fmt = "jsonl" if first == "{" else "json" if first == "[" else "csv"
        elif first != "[":
            fmt = "jsonl"  # a .json file of JSON Lines
    stream = _text(binary)
    rows: Rows
    if fmt in ("csv", "tsv"):
        rows = parse_csv(stream, source, "\t" if fmt == "tsv" else ",", max_chars)
    elif fmt == "json":
        rows = parse_json_array(stream, source)
    else:
        rows = parse_jsonl(stream, source, max_chars)
    if not rows[0]:
        raise TableError(f"{source}: no rows")
    return ResultsTable(source=source, fmt=fmt, rows=tuple(rows[0]), line_numbers=tuple(rows[1]))


def _read_parquet(path: Path) -> ResultsTable:
    """Read a Parquet file with pyarrow (optional dependency), nested structs kept as objects."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise TableError(
            f"{path}: reading Parquet needs pyarrow; install it with `pip install pyarrow` "
            "(or `pip install agentmetrology[parquet]`), or convert the file to CSV/JSONL"
        ) from None
    try:
        rows: Sequence[dict[str, Any]] = pq.read_table(path).to_pylist()
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise TableError(f"{path}: cannot read as Parquet ({type(exc).__name__}: {exc})") from None
    if not rows:
        raise TableError(f"{path}: no rows")
    return ResultsTable(
        source=str(path),
        fmt="parquet",
        rows=tuple(rows),
        line_numbers=tuple(range(1, len(rows) + 1)),
    )
