"""What the viewer was pointed at: an evidence store, an audit dir or an archive audit."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agentmetrology.edges.files import file_kind
from agentmetrology.records.errors import UserError

LEDGER_FILE = "ledger.sqlite"  # the store's documented ledger file name
ARCHIVE_SCHEMA = "agentmetrology.archive-audit/"
SourceKind = Literal["store", "audit", "archive", "report", "tau2", "taubench", "inspect"]


class ViewSourceError(UserError):
    """Raised when the path is not a store, an audit dir or an archive audit."""


@dataclass(frozen=True, slots=True)
class Source:
    """A resolved directory, what it holds, and the only files in it the viewer may serve."""

    kind: SourceKind
    root: Path
    files: tuple[str, ...] = ()  # names directly in `root`; nothing else is ever read
    archive_file: Path | None = None  # archive.json, or the tau2 / tau-bench file shown


# Only what an audit or archive audit writes: a stray file in the folder is not published.
SERVED = ("card.json", "audit.json", "archive.json", "report.html", "report.md")
# What `agm diagnose` and `agm experiment report` write.
REPORT_SERVED = ("diagnose.json", "experiment.json", "evidence.json", "report.html", "report.md")


def _served(root: Path, names: tuple[str, ...] = SERVED) -> tuple[str, ...]:
    """Return the names among `names` that are regular files inside `root` (no symlinks out)."""
    out = []
    for name in names:
        f = root / name
        # A symlink could point outside the folder the user gave: never followed.
        if f.is_file() and not f.is_symlink():
            out.append(name)
    return tuple(out)


def _archive_schema(path: Path) -> str | None:
    """Return the `schema` of a JSON file if it is an archive audit, else None."""
    try:
        with path.open("rb") as fh:
            head = fh.read(64 * 1024 * 1024)
        doc = json.loads(head)
    except (OSError, ValueError, RecursionError):
        return None
    schema = doc.get("schema") if isinstance(doc, dict) else None
    return schema if isinstance(schema, str) and schema.startswith(ARCHIVE_SCHEMA) else None


def _head(path: Path) -> bytes:
    """Return a file's first bytes, a UTF-8 byte order mark and leading whitespace removed
    (b"" when unreadable), as the importers see them."""
    from agentmetrology.archive.importers.limits import file_head

    try:
        return file_head(path, 4096)
    except OSError:
        return b""


def _is_tau2(path: Path) -> bool:
    """Return True when a file's first bytes look like a tau2-bench results file."""
    from agentmetrology.archive.importers.tau2 import looks_like_tau2_head

    head = _head(path)
    return (head[:1] == b"[" and b'"termination_reason"' in head) or (
        head[:1] == b"{" and looks_like_tau2_head(head))


def _is_taubench(path: Path) -> bool:
    """Return True when a file's first bytes look like a tau-bench (v1) results file."""
    head = _head(path)
    return head[:1] == b"[" and b'"task_id"' in head and b'"reward"' in head


def detect_source(path: str | Path) -> Source:
    """Return what `path` is; raise ViewSourceError (one line) when it is none of them."""
    p = Path(path)
    if not p.exists():
        raise ViewSourceError(f"{p} does not exist; give an evidence store, an audit dir or "
                              "an archive audit (archive.json)")
    p = p.resolve()
    if p.is_dir():
        if (p / LEDGER_FILE).is_file():
            return Source("store", p)
        if (p / "card.json").is_file() or (p / "audit.json").is_file():
            return Source("audit", p, _served(p))
        if (p / "diagnose.json").is_file() or (p / "experiment.json").is_file():
            return Source("report", p, _served(p, REPORT_SERVED))
        if (p / "archive.json").is_file() and _archive_schema(p / "archive.json"):
            return Source("archive", p, _served(p), p / "archive.json")
        raise ViewSourceError(f"{p} is not an evidence store (no {LEDGER_FILE}), an audit dir "
                              "(no card.json or audit.json) or an archive audit dir (no "
                              "archive.json)")
    if not p.is_file():  # a named pipe would block the probes below, a device never end
        raise ViewSourceError(f"{p} is {file_kind(p.stat().st_mode)}, not a regular file; give "
                              "an evidence store, an audit dir or an archive audit")
    if _archive_schema(p):
        # Pointed at one file: that file is all the viewer reads.
        return Source("archive", p.parent, (), p)
    if _is_tau2(p):  # a tau2-bench results file: its simulations, read once
        return Source("tau2", p.parent, (), p)
    if _is_taubench(p):  # a tau-bench results file: its rows, read once
        return Source("taubench", p.parent, (), p)
    from agentmetrology.inspect_ext.logs.zip_members import looks_like_inspect

    if looks_like_inspect(p):  # an Inspect .eval log: its samples
        return Source("inspect", p.parent, (), p)
    raise ViewSourceError(f"{p} is not an archive audit (a JSON file with schema "
                          f"{ARCHIVE_SCHEMA}N, as `agm archive audit` writes) nor a tau2 or "
                          "tau-bench results file nor an Inspect .eval log; give an evidence "
                          "store, an audit dir or an archive audit")
