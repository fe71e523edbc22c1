"""The archive formats by name: how each recognises a path (for `--format auto`) and loads it.

`ARCHIVE_FORMATS` is the format registry (runtime/registry.py), in the order `--format auto`
tries them: an agm evidence store, a tau-bench JSON file, a tau2-bench results file, an
Inspect `.eval` log (or a directory of them: the Inspect package's format, registered here by
module path and imported when reached, since that package sits above the archive), JSONL. A
third-party package adds one with an entry point in the group `agentmetrology.archive_formats`
whose value is an `ArchiveFormat` of the same name.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmetrology.archive.importers.agm_store import load_agm, looks_like_store
from agentmetrology.archive.importers.jsonl import load_jsonl
from agentmetrology.archive.importers.limits import file_head
from agentmetrology.archive.importers.tau2 import (
    load_tau2,
    looks_like_tau2,
    looks_like_tau2_head,
    read_tau2_doc,
)
from agentmetrology.archive.importers.taubench import (
    load_taubench,
    looks_like_taubench,
    read_json_doc,
)
from agentmetrology.archive.model import Archive, ArchiveFormatError
from agentmetrology.runtime.registry import Registry, named_instance

_SNIFF_BYTES = 4096


@dataclass(frozen=True)
class Claim:
    """A format's claim on a path, with what it already read there (parsed once; the JSON
    formats' JsonDoc, which says whether any object in it named a key twice)."""

    data: Any = None


@dataclass(frozen=True)
class ArchiveFormat:
    """An archive format: `sniff` claims a path (None: not this format; ArchiveFormatError: it
    looks like this format but is not one), `load(path, data, max_member_bytes)` reads it."""

    name: str
    sniff: Callable[[Path], Claim | None]
    load: Callable[[Path, Any, int], Archive]


ARCHIVE_FORMATS: Registry[ArchiveFormat] = Registry(
    "archive format", group="agentmetrology.archive_formats",
    check=named_instance(ArchiveFormat))


def _head(path: Path) -> bytes:
    return file_head(path, _SNIFF_BYTES)


def first_char(path: Path) -> str:
    """Return the first non-blank character of a file ("" when empty)."""
    head = _head(path)
    return chr(head[0]) if head else ""


def log_files(path: Path) -> list[Path]:
    """Return the Inspect `.eval` logs directly inside a directory, sorted by name."""
    return sorted(p for p in path.glob("*.eval") if p.is_file())


# How to make an Inspect log in JSON format readable: Inspect's converter writes it as `.eval`.
CONVERT_JSON_LOG = "`inspect log convert PATH --to eval --output-dir DIR` writes a log as .eval"


def json_log_files(path: Path) -> list[Path]:
    """Return the Inspect logs in JSON format directly inside a directory, sorted by name: they
    are not read (only `.eval` logs are), so each is named rather than passed over in silence."""
    return sorted(p for p in path.glob("*.json") if p.is_file() and _json_log_head(p))


def _json_log_head(path: Path) -> bool:
    try:
        head = _head(path)
    except OSError:
        return False
    # Inspect writes a JSON log's keys in the order version, status, eval, ...
    return head.startswith(b"{") and b'"version"' in head and b'"eval"' in head


def json_logs_only(path: Path) -> str:
    """Return what a directory without `.eval` logs says of its JSON logs ("" when none)."""
    found = json_log_files(path)
    return (f" (it holds {len(found)} Inspect log(s) in JSON format, e.g. {found[0].name}, "
            f"which are not read: {CONVERT_JSON_LOG})" if found else "")


def reads_file(name: str, load: Callable[[Path, Any, int], Archive]
               ) -> Callable[[Path, Any, int], Archive]:
    """Return `load` refusing a directory or a missing file first (a format of one file)."""
    def checked(path: Path, data: Any, max_member_bytes: int) -> Archive:
        if path.is_dir():
            raise ArchiveFormatError(f"{path.name}: a directory, but --format {name} reads a "
                                     "file")
        if not path.is_file():
            raise ArchiveFormatError(f"{path.name}: not a file")
        return load(path, data, max_member_bytes)
    return checked


def _load_store(path: Path, data: Any, max_member_bytes: int) -> Archive:
    if not looks_like_store(path):
        raise ArchiveFormatError(f"{path.name}: not an agm evidence store (a directory "
                                 "holding ledger.sqlite)")
    return load_agm(path)


def _sniff_taubench(path: Path) -> Claim | None:
    if not path.is_file() or zipfile.is_zipfile(path) or first_char(path) != "[":
        return None
    doc = read_json_doc(path)
    if doc.value == []:
        raise ArchiveFormatError(f"{path.name}: an empty JSON list: no episode to audit")
    if looks_like_taubench(doc.value):
        return Claim(doc)
    if looks_like_tau2(doc.value):
        return None  # a bare list of tau2 simulations: the tau2 format claims it next
    raise ArchiveFormatError(f"{path.name}: a JSON list, but not tau-bench result rows "
                             "(nor tau2 simulations)")


def _sniff_tau2(path: Path) -> Claim | None:
    if not path.is_file() or zipfile.is_zipfile(path):
        return None
    first = first_char(path)
    if first == "[" or (first == "{" and looks_like_tau2_head(_head(path))):
        doc = read_tau2_doc(path)
        return Claim(doc) if looks_like_tau2(doc.value) else None
    return None


def _sniff_jsonl(path: Path) -> Claim | None:
    ok = path.is_file() and not zipfile.is_zipfile(path) and first_char(path) == "{"
    return Claim() if ok else None


for _format in (
    ArchiveFormat("agm", lambda p: Claim() if looks_like_store(p) else None, _load_store),
    ArchiveFormat("taubench", _sniff_taubench,
                  reads_file("taubench", lambda p, data, _: load_taubench(p, data))),
    ArchiveFormat("tau2", _sniff_tau2,
                  reads_file("tau2", lambda p, data, _: load_tau2(p, data))),
):
    ARCHIVE_FORMATS.add(_format.name, _format)
# The Inspect package plugs its log format in above the archive, as a plug-in would: named by
# its module, imported when `--format auto` reaches it (after tau2, before JSONL) or when asked.
ARCHIVE_FORMATS.add_lazy("inspect", "agentmetrology.inspect_ext.logs.archive_format:INSPECT")
ARCHIVE_FORMATS.add("jsonl", ArchiveFormat(
    "jsonl", _sniff_jsonl, reads_file("jsonl", lambda p, _, __: load_jsonl(p))))
