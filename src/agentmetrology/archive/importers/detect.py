"""Format auto-detection and the single entry point that loads any supported archive.

A path is an agm evidence store (a directory holding the ledger), a directory of Inspect `.eval`
logs (every `*.eval` directly inside, in name order, each imported on its own: a log that cannot
be read is a load problem, fatal only when no log imports), or a single file. The formats and
their order come from the format registry (`formats.ARCHIVE_FORMATS`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology.archive.importers.formats import ARCHIVE_FORMATS, ArchiveFormat
from agentmetrology.archive.importers.jsonl import load_jsonl
from agentmetrology.archive.importers.limits import MAX_MEMBER_BYTES
from agentmetrology.archive.model import Archive, ArchiveFormatError

AUTO = "auto"
# The built-in choices of --format; `format_names()` adds the plug-ins' formats.
FORMATS: tuple[str, ...] = (AUTO, *ARCHIVE_FORMATS.names(plugins=False))


def format_names() -> list[str]:
    """Return every --format choice: auto, the built-in formats, then the plug-ins' formats."""
    return [AUTO, *ARCHIVE_FORMATS.names()]


def known_format(fmt: str) -> bool:
    """Return True when `fmt` is a --format choice; a built-in one is known without reading
    the installed packages' entry points (importlib.metadata and the scan: about 15 ms of an
    audit's start, spent before its other processes could start)."""
    return fmt in FORMATS or fmt in format_names()


def _detect(path: Path) -> tuple[ArchiveFormat, Any]:
    """Return the first format that claims `path`, and what it read there."""
    for name in ARCHIVE_FORMATS.names():
        fmt = ARCHIVE_FORMATS.get(name)
        claim = fmt.sniff(path)
        if claim is not None:
            return fmt, claim.data
    if not path.is_file():
        raise ArchiveFormatError(f"{path.name}: not a file")
    if path.stat().st_size == 0:
        raise ArchiveFormatError(f"{path.name}: an empty file: no episode to audit")
    raise ArchiveFormatError(f"{path.name}: unrecognised archive format (expected a "
                             "tau-bench or tau2 JSON file, an Inspect .eval log or JSONL)")


def detect_format(path: Path) -> str:
    """Return the name of the format of a path, or raise ArchiveFormatError."""
    return _detect(path)[0].name


def load_archive(path: Path, fmt: str = AUTO, spans: Path | None = None,
                 max_member_bytes: int = MAX_MEMBER_BYTES) -> Archive:
    """Return the Archive in `path` (format given or detected), with spans from `spans` added.

    `max_member_bytes` caps what one member of an Inspect log may inflate to (bytes actually
    produced, not the size the zip declares).
    """
    if not known_format(fmt):
        raise ArchiveFormatError(f"unknown format {fmt!r}; choose one of "
                                 f"{', '.join(format_names())}")
    chosen, data = _detect(path) if fmt == AUTO else (ARCHIVE_FORMATS.get(fmt), None)
    archive = chosen.load(path, data, max_member_bytes)
    if spans is not None:
        if not spans.is_file():
            raise ArchiveFormatError(f"{spans.name}: spans file not found")
        load_jsonl(spans, archive, spans_only=True)
    if not archive.episodes and not archive.spans:
        why = (f"{len(archive.problems)} problem(s); first: {archive.problems[0]}"
               if archive.problems else "the file holds none")
        raise ArchiveFormatError(f"{path.name}: no episode could be read as {chosen.name} "
                                 f"({why})")
    return archive
