"""Write an export as JSON Lines, CSV or Parquet, atomically, never over a file unasked.

The file is written beside its destination and moved into place in one step, so a reader (or a
crash) never sees half an export. Without `force` an existing destination is refused, and the
final step cannot replace a file that appeared meanwhile (a hard link fails if the name exists).
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import count
from operator import itemgetter
from pathlib import Path
from typing import Any

from agentmetrology.edges.files import blocking_path, file_kind, resolved
from agentmetrology.records.errors import UserError
from agentmetrology.run.export import Export, jsonl_text, stream_rows
from agentmetrology.run.export_csv import spreadsheet_safe
from agentmetrology.run.export_encode import TEXT_BATCH, arrow_type, parquet_chunks, text_chunks
from agentmetrology.store import EvidenceStore, LedgerError, StoreNotFoundError
from agentmetrology.store.blobs import BlobError
from agentmetrology.store.enclosing import refuse_inside_store

FORMATS = ("jsonl", "csv", "parquet")
SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".parquet": "parquet",
            ".pq": "parquet"}


class ExportError(UserError):
    """An export that cannot be written; the message says what to do."""


def format_for(fmt: str | None, out: Path | None) -> str:
    """Return the format to write: `fmt`, else the suffix of `out`, else jsonl.

    ExportError when `fmt` is unknown or contradicts the suffix (`agm stats` reads by suffix).
    """
    by_suffix = SUFFIXES.get(out.suffix.lower()) if out is not None else None
    if fmt is None:
        return by_suffix or "jsonl"
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}; use one of: {', '.join(FORMATS)}")
    if by_suffix is not None and by_suffix != fmt:
        raise ExportError(f"--format {fmt} but {out} has the suffix of {by_suffix}; "
                          "make them agree (readers pick the format by suffix)")
    return fmt


def csv_text(export: Export) -> str:
    """Return the rows as CSV with a header; a null is an empty cell."""
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([spreadsheet_safe(c) for c in export.columns])
    for r in export.rows:
        writer.writerow(["" if r[c] is None else spreadsheet_safe(r[c]) for c in export.columns])
    return buf.getvalue()


def stream_bytes(columns: list[str], rows: Iterable[dict[str, Any]], fmt: str,
                 batch: int = TEXT_BATCH) -> Iterator[bytes]:
    """Yield JSON Lines or CSV (`fmt`) of streamed rows in chunks of `batch` rows: the bytes
    `render` gives for the same rows."""
    return text_chunks(columns, ([r[c] for c in columns] for r in rows), fmt, batch)


def _arrow() -> tuple[Any, Any]:
    """Return (pyarrow, pyarrow.parquet); ExportError saying how to install them."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ExportError("writing Parquet needs pyarrow: pip install pyarrow "
                          "(or agentmetrology[parquet]), or export --format jsonl or csv"
                          ) from None
    return pa, pq


def parquet_bytes(export: Export) -> bytes:
    """Return the rows as a Parquet file with explicit column types (nulls typed too)."""
    pa, pq = _arrow()
    schema = pa.schema([(c, arrow_type(pa, c)) for c in export.columns])
    table = pa.Table.from_pylist(export.rows, schema=schema)
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def render(export: Export, fmt: str) -> bytes:
    """Return the export's bytes in `fmt`."""
    if fmt == "jsonl":
        return jsonl_text(export).encode("utf-8")
    if fmt == "csv":
        return csv_text(export).encode("utf-8")
    return parquet_bytes(export)


def _user_file_mode() -> int:
    """Return the mode a plain `open(path, "w")` would give a new file under the user's umask."""
    mask = os.umask(0)  # reading the umask means setting it; put it back at once
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(data: bytes | Iterable[bytes], out: Path, *, force: bool) -> None:
    """Write `data` (bytes, or chunks of them) to `out` in one step; ExportError if `out`
    exists and not `force` (a failure while the chunks are made leaves no file)."""
    check_file_name(out)
    if out.exists() and not force:
        raise ExportError(f"{out} exists; give --force to replace it")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise ExportError(f"{parent}: no such directory")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise ExportError(f"cannot write in {parent}: {exc.strerror or exc}") from None
    try:
        # mkstemp makes the file private (0600); an export is an ordinary output file, made
        # readable as the user's umask says, like every other file the tool writes.
        os.fchmod(fd, _user_file_mode())
        with os.fdopen(fd, "wb") as f:
            for chunk in [data] if isinstance(data, bytes) else data:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        if force:
            os.replace(tmp, out)
        else:
            try:
                os.link(tmp, out)  # fails if the name appeared since the check: never clobber
            except FileExistsError:
                raise ExportError(f"{out} exists; give --force to replace it") from None
            except OSError:  # a file system without hard links: check, then move
                if out.exists():
                    raise ExportError(f"{out} exists; give --force to replace it") from None
                os.replace(tmp, out)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def check_file_name(out: Path) -> None:
    """ExportError when `out` is a directory or exists as something other than a regular file:
    the export replaces the name, so `--force` would swap a device or a named pipe (`/dev/null`
    as root) for a regular file."""
    if out.is_dir():
        raise ExportError(f"{out} is a directory; give a file name")
    with contextlib.suppress(OSError):  # a name that cannot be looked at is refused later
        mode = out.stat().st_mode
        if not stat.S_ISREG(mode):
            raise ExportError(f"{out} is {file_kind(mode)}, not a regular file; give a file "
                              "name (or leave out --out to write to stdout)")


def check_not_source(source: Path, out: Path) -> None:
    """ExportError when `out` is the results file exported, InsideStoreError when it lies inside
    an evidence store (the one exported or another): `--force` would replace the evidence with
    its own export (`--out STORE/ledger.sqlite`)."""
    src, dst = resolved(source), resolved(out)
    if dst == src and not src.is_dir():
        raise ExportError(f"{out} is the file being exported; write the export elsewhere")
    refuse_inside_store(out, "export")  # the store exported, or any other


def check_destination(kind: str, out: Path | None, *, force: bool,
                      source: Path | None = None) -> None:
    """ExportError when Parquet would go to stdout, `out` is no file name, is (or is in) the
    `source` read, or exists unforced (checked before the source is read)."""
    if out is None:
        if kind == "parquet":
            raise ExportError("Parquet is binary: give --out FILE.parquet")
        return
    check_file_name(out)
    if source is not None:
        check_not_source(source, out)
    if out.exists() and not force:
        raise ExportError(f"{out} exists; give --force to replace it")


def check_inspect_destination(store: Path, out: Path | None) -> Path:
    """Return `out`, the directory Inspect logs go to; ExportError when it is missing or a file,
    or when `store` is a file (only an evidence store exports as Inspect logs)."""
    if out is None:
        raise ExportError("--format inspect writes a directory of .eval logs: give --out DIR")
    found = blocking_path(out)
    if found is not None:
        above, kind = found
        if above == out:
            raise ExportError(f"{out} is {kind}; --format inspect writes .eval logs into a "
                              "directory")
        raise ExportError(f"{above} is {kind}, so --out {out} cannot be made; give a "
                          "directory")
    if store.is_file():
        raise ExportError(f"{store} is a file: --format inspect exports an evidence store "
                          "(a directory)")
    if store.is_dir():
        check_not_source(store, out)
    return out


def write_output(data: bytes | Iterable[bytes], out: Path | None, *, force: bool) -> None:
    """Write bytes (or chunks of them) to `out`, atomically, or to stdout when None."""
    if out is not None:
        write_atomic(data, out, force=force)
        return
    for chunk in [data] if isinstance(data, bytes) else data:
        sys.stdout.buffer.write(chunk)
    sys.stdout.flush()


@contextmanager
def export_errors(source: Path) -> Iterator[None]:
    """Turn a failure to read `source` into an ExportError naming it (a missing store keeps its
    own UserError, which says how to fix it)."""
    try:
        yield
    except StoreNotFoundError:
        raise
    except BlobError as exc:
        raise ExportError(f"{source}: {exc}") from None
    except (OSError, LedgerError) as exc:
        raise ExportError(f"cannot read the evidence store at {source}: {exc}") from None


def export_store(store: Path, names: Sequence[str] | None, kind: str, out: Path | None, *,
                 force: bool) -> tuple[int, int]:
    """Write the export of the store at `store` to `out` (stdout when None); return (rows,
    administrations without an episode).

    Every format is streamed (memory bounded by a batch of rows, whatever the store's size);
    the bytes are those `render` gives for the whole export.
    """
    with export_errors(store), EvidenceStore.open_readonly(store, scrub_env=False) as st:
        stream = stream_rows(st, names)
        # counted in C as the rows pass (a Python generator here cost a step per row)
        tally = count()
        counted = map(itemgetter(0), zip(stream.values, tally, strict=False))  # tally never ends
        if kind == "parquet":
            pa, pq = _arrow()
            chunks = parquet_chunks(pa, pq, stream.columns, counted)
        else:
            chunks = text_chunks(stream.columns, counted, kind)
        write_output(chunks, out, force=force)
        return next(tally), stream.unrecorded
