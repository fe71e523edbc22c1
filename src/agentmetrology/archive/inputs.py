"""The paths `agm archive` is given, checked and read: an archive file, an evidence store or a
directory of Inspect .eval logs, the --out directory, and a tau2 submission's reported claim.

Every refusal is an `InputRefused` whose message may quote a hostile file (member names,
parser errors): the command line redacts it and flattens it to one line before printing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology.archive.importers import load_archive
from agentmetrology.archive.importers.agm_store import looks_like_store, open_store
from agentmetrology.archive.importers.detect import format_names, known_format
from agentmetrology.archive.importers.formats import json_logs_only, log_files
from agentmetrology.archive.importers.limits import MAX_MEMBER_BYTES
from agentmetrology.archive.model import Archive, ArchiveFormatError
from agentmetrology.archive.recovery import recover_grades
from agentmetrology.archive.report_qualify import store_evidence
from agentmetrology.archive.score_row import store_facts
from agentmetrology.archive.tau2_reported import find_claim
from agentmetrology.edges.files import resolved as resolved_path
from agentmetrology.records.errors import UserError
from agentmetrology.store.enclosing import InsideStoreError, refuse_inside_store
from agentmetrology.store.store import LEDGER_FILE
from agentmetrology.store.verify_ahead import LedgerHalf

DEFAULT_MEMBER_MB = MAX_MEMBER_BYTES >> 20


class InputRefused(UserError):
    """An archive input that cannot be used; the message may quote the file's own text."""


def input_file(path: Path, what: str, dir_ok: bool = False) -> Path:
    """Return the resolved input; with dir_ok an agm store or a directory of .eval logs."""
    resolved = resolved_path(path)
    if not resolved.exists():
        raise InputRefused(f"{what} not found: {path}")
    if dir_ok and resolved.is_dir():
        if looks_like_store(resolved) or log_files(resolved):
            return resolved
        raise InputRefused(f"{what} is a directory that is neither an evidence store (holding "
                           f"{LEDGER_FILE}) nor holds Inspect .eval logs: {path}"
                           f"{json_logs_only(resolved)}")
    if not resolved.is_file():
        raise InputRefused(f"{what} is not a regular file" + (
            ", an evidence store or a directory of .eval logs" if dir_ok else "") + f": {path}")
    return resolved


def read_from(src: Path) -> list[tuple[str, Path]]:
    """Return the files an archive was read from (a store by its ledger, a log dir by its logs)."""
    if looks_like_store(src):
        return [("archive", src / LEDGER_FILE)]
    if src.is_dir():
        return [("archive", f) for f in log_files(src)]
    return [("archive", src)]


def make_out_dir(path: Path) -> Path:
    """Return the resolved --out directory, created if new; refused inside an evidence store."""
    try:
        refuse_inside_store(path, "report")
    except InsideStoreError as exc:
        raise InputRefused(str(exc)) from None
    resolved = resolved_path(path)
    if resolved.exists() and not resolved.is_dir():
        raise InputRefused(f"--out exists and is not a directory: {path}")
    try:
        resolved.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputRefused(f"cannot create --out directory {path}: {exc.strerror}") from exc
    return resolved


def load_checked(path: Path, fmt: str, spans: Path | None = None,
                 max_member_mb: int = DEFAULT_MEMBER_MB) -> Archive:
    """Return the archive at `path` read as `fmt` (an agm store's grades recovered by replay);
    any way the file cannot be read is refused in one message."""
    if not known_format(fmt):
        raise InputRefused(f"unknown --format {fmt!r}; choose one of "
                           f"{', '.join(format_names())}")
    try:
        archive = load_archive(path, fmt, spans, max_member_bytes=max_member_mb << 20)
        if archive.format == "agm":
            recover_grades(archive)
        return archive
    except ArchiveFormatError as exc:
        raise InputRefused(str(exc)) from exc
    except RecursionError as exc:  # a parser path the importers do not guard yet
        raise InputRefused(f"{path.name}: cannot be read as {fmt} (nested too deeply)") from exc
    except (OSError, ValueError, KeyError, TypeError, ArithmeticError) as exc:
        raise InputRefused(f"{path.name}: cannot be read as {fmt} "
                           f"({type(exc).__name__}: {exc})") from exc


def tau2_claim(src: Path, reported: Path | None,
               inputs: list[tuple[str, Path]]) -> tuple[str, dict[str, Any]] | None:
    """Return the number a tau2 file's submission reports; its file joins the inputs."""
    try:
        found = find_claim(src, input_file(reported, "--reported") if reported else None)
    except ArchiveFormatError as exc:
        raise InputRefused(str(exc)) from exc
    if found is None:
        return None
    inputs.append(("reported", found[2]))
    return found[0], found[1]


def store_binding(archive: Archive, src: Path, ledger: LedgerHalf | None = None
                  ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """Return our own store's qualification and score-row facts, which bind its report to its
    qualified evidence; (None, None) for every other format. The full check of the store takes
    what the import found in the blobs it read (each blob read once), then lets it go, and
    `ledger`, its ledger half run meanwhile (store.verify_ahead)."""
    if archive.format != "agm":
        return None, None
    reads, archive.blob_reads = archive.blob_reads, None
    qualification = store_evidence(src, reads, ledger)
    with open_store(src) as st:
        return qualification, store_facts(st)
