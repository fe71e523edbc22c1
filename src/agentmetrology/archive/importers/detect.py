"""Format auto-detection and the single entry point that loads any supported archive."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from agentmetrology.archive.importers.agm_store import load_agm, looks_like_store
from agentmetrology.archive.importers.inspect_eval import load_inspect, looks_like_inspect
from agentmetrology.archive.importers.jsonl import load_jsonl
from agentmetrology.archive.importers.taubench import load_taubench, looks_like_taubench
from agentmetrology.archive.model import Archive, ArchiveFormatError

FORMATS: tuple[str, ...] = ("auto", "agm", "taubench", "inspect", "jsonl")
_SNIFF_BYTES = 4096


def _first_char(path: Path) -> str:
    with path.open("rb") as fh:
        head = fh.read(_SNIFF_BYTES).lstrip()
    return chr(head[0]) if head else ""


def detect_format(path: Path) -> str:
    """Return 'agm', 'inspect', 'taubench' or 'jsonl' for a path, or raise ArchiveFormatError."""
    if looks_like_store(path):
        return "agm"
    if zipfile.is_zipfile(path):
        if looks_like_inspect(path):
            return "inspect"
        raise ArchiveFormatError(f"{path.name}: a zip file but not an Inspect .eval log")
    first = _first_char(path)
    if first == "[":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ArchiveFormatError(f"{path.name}: starts like JSON but does not parse") from exc
        if looks_like_taubench(data):
            return "taubench"
        raise ArchiveFormatError(f"{path.name}: a JSON list, but not tau-bench result rows")
    if first == "{":
        return "jsonl"
    raise ArchiveFormatError(f"{path.name}: unrecognised archive format "
                             "(expected a tau-bench JSON file, an Inspect .eval log or JSONL)")


def _load_one(path: Path, fmt: str) -> tuple[Archive, str]:
    """Return the archive in `path` and the format it was read as."""
    if fmt == "agm" or (fmt == "auto" and looks_like_store(path)):
        if not looks_like_store(path):
            raise ArchiveFormatError(f"{path.name}: not an agm evidence store (a directory "
                                     "holding ledger.sqlite)")
        return load_agm(path), "agm"
    if not path.is_file():
        raise ArchiveFormatError(f"{path.name}: not a file")
    kind = detect_format(path) if fmt == "auto" else fmt
    if kind == "taubench":
        return load_taubench(path), kind
    if kind == "inspect":
        return load_inspect(path), kind
    return load_jsonl(path), kind


def load_archive(path: Path, fmt: str = "auto", spans: Path | None = None) -> Archive:
    """Return the Archive in `path` (format given or detected), with spans from `spans` added."""
    if fmt not in FORMATS:
        raise ArchiveFormatError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    archive, kind = _load_one(path, fmt)
    if spans is not None:
        if not spans.is_file():
            raise ArchiveFormatError(f"{spans.name}: spans file not found")
        load_jsonl(spans, archive, spans_only=True)
    if not archive.episodes and not archive.spans:
        first = f"; first: {archive.problems[0]}" if archive.problems else ""
        raise ArchiveFormatError(f"{path.name}: no episode could be read as {kind} "
                                 f"({len(archive.problems)} problem(s){first})")
    return archive
