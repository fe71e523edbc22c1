"""Format auto-detection and the single entry point that loads any supported archive.

A path is an agm evidence store (a directory holding the ledger), a directory of Inspect `.eval`
logs (every `*.eval` directly inside, in name order, each imported on its own: a log that cannot
be read is a load problem, fatal only when no log imports), or a single file.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from agentmetrology.archive.importers.agm_store import load_agm, looks_like_store
from agentmetrology.archive.importers.inspect_eval import (
    MAX_MEMBER_BYTES,
    load_inspect,
    looks_like_inspect,
)
from agentmetrology.archive.importers.jsonl import load_jsonl
from agentmetrology.archive.importers.tau2 import (
    load_tau2,
    looks_like_tau2,
    looks_like_tau2_head,
    read_tau2_json,
)
from agentmetrology.archive.importers.taubench import (
    load_taubench,
    looks_like_taubench,
    read_json_file,
)
from agentmetrology.archive.model import Archive, ArchiveFormatError, LoadProblem

FORMATS: tuple[str, ...] = ("auto", "agm", "taubench", "tau2", "inspect", "jsonl")
_SNIFF_BYTES = 4096


def _head(path: Path) -> bytes:
    with path.open("rb") as fh:
        return fh.read(_SNIFF_BYTES).lstrip()


def _first_char(path: Path) -> str:
    head = _head(path)
    return chr(head[0]) if head else ""


def log_files(path: Path) -> list[Path]:
    """Return the Inspect `.eval` logs directly inside a directory, sorted by name."""
    return sorted(p for p in path.glob("*.eval") if p.is_file())


def _detect(path: Path) -> tuple[str, Any]:
    """Return the format of a file and, for tau-bench, its parsed JSON (read only once)."""
    if zipfile.is_zipfile(path):
        if looks_like_inspect(path):
            return "inspect", None
        raise ArchiveFormatError(f"{path.name}: a zip file but not an Inspect .eval log")
    first = _first_char(path)
    if first == "[":
        data = read_json_file(path)
        if looks_like_taubench(data):
            return "taubench", data
        if looks_like_tau2(data):
            return "tau2", data
        raise ArchiveFormatError(f"{path.name}: a JSON list, but not tau-bench result rows "
                                 "(nor tau2 simulations)")
    if first == "{" and looks_like_tau2_head(_head(path)):
        return "tau2", read_tau2_json(path)
    if first == "{":
        return "jsonl", None
    raise ArchiveFormatError(f"{path.name}: unrecognised archive format (expected a "
                             "tau-bench or tau2 JSON file, an Inspect .eval log or JSONL)")


def detect_format(path: Path) -> str:
    """Return 'agm', 'inspect', 'taubench', 'tau2' or 'jsonl' for a path, else raise."""
    if looks_like_store(path):
        return "agm"
    if path.is_dir():
        if log_files(path):
            return "inspect"
        raise ArchiveFormatError(f"{path.name}: a directory that is neither an agm evidence "
                                 "store nor holds Inspect .eval logs")
    return _detect(path)[0]


def load_log_dir(path: Path, max_member_bytes: int = MAX_MEMBER_BYTES) -> Archive:
    """Return one Archive of every `.eval` log in a directory; unreadable logs are problems."""
    files = log_files(path)
    if not files:
        raise ArchiveFormatError(f"{path.name}: a directory that is neither an agm evidence "
                                 "store nor holds Inspect .eval logs")
    archive = Archive(source=path.name, format="inspect")
    logs: dict[str, Any] = {}
    for f in files:
        try:
            one = load_inspect(f, max_member_bytes)
        except ArchiveFormatError as exc:
            archive.problems.append(LoadProblem(f.name, None, f"log not imported: {exc}"))
            logs[f.name] = {"imported": False}
            continue
        archive.episodes.extend(one.episodes)
        archive.spans.extend(one.spans)
        archive.problems.extend(one.problems)
        logs[f.name] = {"imported": True, "episodes": len(one.episodes), **one.notes}
    imported = sum(1 for v in logs.values() if v["imported"])
    if not imported:
        raise ArchiveFormatError(f"{path.name}: none of its {len(files)} .eval log(s) could be "
                                 f"read; first: {archive.problems[0]}")
    archive.notes.update({"log_directory": True, "logs_found": len(files),
                          "logs_imported": imported, "logs": logs,
                          "planned": sum(v.get("planned", 0) for v in logs.values())})
    return archive


def _load_one(path: Path, fmt: str, max_member_bytes: int) -> tuple[Archive, str]:
    """Return the archive in `path` and the format it was read as."""
    if fmt == "agm" or (fmt == "auto" and looks_like_store(path)):
        if not looks_like_store(path):
            raise ArchiveFormatError(f"{path.name}: not an agm evidence store (a directory "
                                     "holding ledger.sqlite)")
        return load_agm(path), "agm"
    if path.is_dir():
        if fmt not in ("auto", "inspect"):
            raise ArchiveFormatError(f"{path.name}: a directory, but --format {fmt} reads a file")
        return load_log_dir(path, max_member_bytes), "inspect"
    if not path.is_file():
        raise ArchiveFormatError(f"{path.name}: not a file")
    kind, data = _detect(path) if fmt == "auto" else (fmt, None)
    if kind == "taubench":
        return load_taubench(path, data), kind
    if kind == "tau2":
        return load_tau2(path, data), kind
    if kind == "inspect":
        return load_inspect(path, max_member_bytes), kind
    return load_jsonl(path), kind


def load_archive(path: Path, fmt: str = "auto", spans: Path | None = None,
                 max_member_bytes: int = MAX_MEMBER_BYTES) -> Archive:
    """Return the Archive in `path` (format given or detected), with spans from `spans` added.

    `max_member_bytes` caps what one member of an Inspect log may inflate to (bytes actually
    produced, not the size the zip declares).
    """
    if fmt not in FORMATS:
        raise ArchiveFormatError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    archive, kind = _load_one(path, fmt, max_member_bytes)
    if spans is not None:
        if not spans.is_file():
            raise ArchiveFormatError(f"{spans.name}: spans file not found")
        load_jsonl(spans, archive, spans_only=True)
    if not archive.episodes and not archive.spans:
        first = f"; first: {archive.problems[0]}" if archive.problems else ""
        raise ArchiveFormatError(f"{path.name}: no episode could be read as {kind} "
                                 f"({len(archive.problems)} problem(s){first})")
    return archive
