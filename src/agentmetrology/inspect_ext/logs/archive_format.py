"""The `inspect` archive format: an Inspect `.eval` log, or a directory of them, as an Archive.

The archive's format registry names this module's `INSPECT` (archive/importers/formats.py) and
imports it when `--format auto` reaches it or `--format inspect` asks for it, as it would a
third-party format: the archive never imports the Inspect package.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from agentmetrology.archive.importers.formats import (
    CONVERT_JSON_LOG,
    ArchiveFormat,
    Claim,
    json_log_files,
    json_logs_only,
    log_files,
)
from agentmetrology.archive.importers.span_repeats import SpanRepeats
from agentmetrology.archive.model import Archive, ArchiveFormatError, LoadProblem
from agentmetrology.inspect_ext.logs.importer import (
    PlannedKey,
    load_inspect,
    load_inspect_planned,
    looks_like_inspect,
)


def _no_logs(path: Path) -> ArchiveFormatError:
    return ArchiveFormatError(f"{path.name}: a directory that is neither an agm evidence "
                              f"store nor holds Inspect .eval logs{json_logs_only(path)}")


def load_log_dir(path: Path, max_member_bytes: int) -> Archive:
    """Return one Archive of every `.eval` log in a directory; unreadable logs are problems.

    A span two logs both record of one episode is one span (`SpanRepeats`), and an episode two
    logs plan is planned once (`planned`); the episodes are folded after (`detect`)."""
    files = log_files(path)
    if not files:
        raise _no_logs(path)
    archive = Archive(source=path.name, format="inspect")
    logs: dict[str, Any] = {}
    spans = SpanRepeats(archive)  # a copied log's spans are folded as its episodes are
    planned: set[PlannedKey] = set()  # a copied log plans the same episodes again
    for f in files:
        try:
            one, plan = load_inspect_planned(f, max_member_bytes)
        except ArchiveFormatError as exc:
            archive.problems.append(LoadProblem(f.name, None, f"log not imported: {exc}"))
            logs[f.name] = {"imported": False}
            continue
        archive.episodes.extend(one.episodes)
        archive.problems.extend(one.problems)
        repeated = spans.add(f.name, one.episodes, one.spans)
        planned |= plan
        logs[f.name] = {"imported": True, "episodes": len(one.episodes), **one.notes,
                        "spans": len(one.spans), "spans_repeated": repeated}
    imported = sum(1 for v in logs.values() if v["imported"])
    if not imported:
        raise ArchiveFormatError(f"{path.name}: none of its {len(files)} .eval log(s) could be "
                                 f"read; first: {archive.problems[0]}")
    unread = json_log_files(path)
    for f in unread:  # its samples would be missing from every count without a word
        archive.problems.append(LoadProblem(f.name, None, (
            "not read: an Inspect log in JSON format, and only .eval logs are read "
            f"({CONVERT_JSON_LOG}; leave it out if it is a .eval log of this folder saved "
            "again)")))
    archive.notes.update({"log_directory": True, "logs_found": len(files),
                          "logs_imported": imported, "logs": logs, "planned": len(planned),
                          "json_logs_not_read": [f.name for f in unread],
                          "spans_repeated": sum(v.get("spans_repeated", 0)
                                                for v in logs.values())})
    return archive


def _sniff_inspect(path: Path) -> Claim | None:
    if path.is_dir():
        if log_files(path):
            return Claim()
        raise _no_logs(path)
    if not path.is_file() or not zipfile.is_zipfile(path):
        return None
    if looks_like_inspect(path):
        return Claim()
    raise ArchiveFormatError(f"{path.name}: a zip file but not an Inspect .eval log")


def _load_inspect(path: Path, data: Any, max_member_bytes: int) -> Archive:
    if path.is_dir():
        return load_log_dir(path, max_member_bytes)
    if not path.is_file():
        raise ArchiveFormatError(f"{path.name}: not a file")
    return load_inspect(path, max_member_bytes)


INSPECT = ArchiveFormat("inspect", _sniff_inspect, _load_inspect)
