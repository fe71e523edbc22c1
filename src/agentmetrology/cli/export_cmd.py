"""`agm export STORE`: one row per recorded episode as JSON Lines, CSV or Parquet (a tau2-bench
results file instead of a store: one row per simulation)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import typer

from agentmetrology.archive.importers import load_archive
from agentmetrology.archive.model import ArchiveFormatError
from agentmetrology.archive.tau2_export import tau2_export
from agentmetrology.cli.args import split_nonempty_names
from agentmetrology.cli.console import err_console
from agentmetrology.cli.errors import fail
from agentmetrology.run.export import export_rows, stream_rows
from agentmetrology.run.export_write import format_for, render, stream_bytes, write_atomic
from agentmetrology.store import EvidenceStore, LedgerError, StoreNotFoundError
from agentmetrology.store.blobs import BlobError


def export_cmd(
    store: Path = typer.Argument(..., metavar="STORE", help="Evidence store directory, or a "
                                                            "tau2-bench results file."),
    fmt: str = typer.Option(None, "--format", metavar="jsonl|csv|parquet|inspect",
                            help="Output format (default: from the --out suffix, else jsonl); "
                                 "inspect writes Inspect AI .eval logs into --out DIR."),
    out: Path | None = typer.Option(None, "--out", metavar="FILE|DIR",
                             help="Output file (default: stdout; Parquet needs a file; "
                                  "inspect a directory)."),
    campaign: str = typer.Option(None, "--campaign", metavar="NAME[,NAME]",
                                 help="Only these campaigns (default: all)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output file."),
) -> None:
    """Write one row per recorded episode: key fields, termination, every scorer's score,
    status and version, cost and digests; an unmeasured score is null, never 0."""
    if out is not None and str(out) == "-":
        out = None  # `--out -` is stdout, as for every tool that writes a stream
    if fmt == "inspect":
        _export_inspect(store, out, campaign, force)
        return
    kind = format_for(fmt, out)
    if out is None and kind == "parquet":
        fail("Parquet is binary: give --out FILE.parquet")
    if out is not None and out.exists() and not force:
        fail(f"{out} exists; give --force to replace it")  # before reading the store
    names = split_nonempty_names(campaign) if campaign is not None else None
    try:
        if store.is_file():  # a tau2-bench results file: one row per simulation
            export = tau2_export(load_archive(store, "tau2"))
            rows, unrecorded = len(export.rows), export.unrecorded
            _write(render(export, kind), out, force)
        else:
            with EvidenceStore.open_readonly(store, scrub_env=False) as st:
                rows, unrecorded = _export_store(st, names, kind, out, force)
    except ArchiveFormatError as exc:
        fail(str(exc))
    except StoreNotFoundError:
        raise  # a UserError saying how to fix it: not "cannot read" below
    except BlobError as exc:
        fail(f"{store}: {exc}")
    except (OSError, LedgerError) as exc:
        fail(f"cannot read the evidence store at {store}: {exc}")
    where = "stdout" if out is None else str(out)
    # what is absent, said in the source's own terms (a results file has no campaign)
    absent = (f"task(s) of the file's task list have no simulation and are not rows (agm "
              f"archive audit {store.name})" if store.is_file() else
              "planned administration(s) have no recorded episode yet and are not rows "
              "(agm campaign status)")
    note = f"; {unrecorded} {absent}" if unrecorded else ""
    err_console.print(f"exported {rows} episode(s) as {kind} to {where}{note}",
                      markup=False, emoji=False)


def _export_store(st: EvidenceStore, names: list[str] | None, kind: str, out: Path | None,
                  force: bool) -> tuple[int, int]:
    """Write the store's export; return (rows, administrations without an episode).

    JSON Lines and CSV are streamed (bounded memory); Parquet is built whole, then written.
    """
    if kind == "parquet":
        export = export_rows(st, names)
        _write(render(export, kind), out, force)
        return len(export.rows), export.unrecorded
    stream = stream_rows(st, names)
    count = [0]

    def counted() -> Iterator[dict[str, Any]]:
        for row in stream.rows:
            count[0] += 1
            yield row
    _write(stream_bytes(stream.columns, counted(), kind), out, force)
    return count[0], stream.unrecorded


def _write(data: bytes | Iterable[bytes], out: Path | None, force: bool) -> None:
    """Write bytes (or chunks of them) to `out`, atomically, or to stdout when None."""
    if out is not None:
        write_atomic(data, out, force=force)
        return
    for chunk in [data] if isinstance(data, bytes) else data:
        sys.stdout.buffer.write(chunk)
    sys.stdout.flush()


def _export_inspect(store: Path, out: Path | None, campaign: str | None, force: bool) -> None:
    """Write the store as Inspect .eval logs, one per campaign × target × level × condition."""
    if out is None:
        fail("--format inspect writes a directory of .eval logs: give --out DIR")
    if out.exists() and not out.is_dir():
        fail(f"{out} is a file; --format inspect writes .eval logs into a directory")
    if store.is_file():
        fail(f"{store} is a file: --format inspect exports an evidence store (a directory)")
    try:
        from agentmetrology.inspect_ext.log_export import write_inspect_logs
    except ImportError as exc:
        fail(f"--format inspect needs inspect-ai ({exc}): pip install 'agentmetrology[inspect]'")
    names = split_nonempty_names(campaign) if campaign is not None else None
    try:
        with EvidenceStore.open_readonly(store, scrub_env=False) as st:
            written = write_inspect_logs(st, export_rows(st, names), out, force=force)
    except StoreNotFoundError:
        raise
    except BlobError as exc:
        fail(f"{store}: {exc}")
    except (OSError, LedgerError) as exc:
        fail(f"cannot read the evidence store at {store}: {exc}")
    for w in written:
        unmeasured = f", {w.unmeasured} unmeasured" if w.unmeasured else ""
        err_console.print(f"{w.path}: {w.samples} sample(s){unmeasured}", markup=False,
                          emoji=False, soft_wrap=True)
    err_console.print(f"exported {sum(w.samples for w in written)} episode(s) as "
                      f"{len(written)} Inspect log(s) to {out}", markup=False, emoji=False)
