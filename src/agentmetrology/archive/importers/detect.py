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
from agentmetrology.archive.model import (
    Archive,
    ArchiveEpisode,
    ArchiveFormatError,
    LoadProblem,
    RepeatKey,
    merge_repeat,
    repeat_key,
    repeat_text,
)

AUTO = "auto"
ABSENT = ("not_in_archive", "never_ran")  # planned placeholders: no record of the episode
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


def _name_inspect_tasks(archive: Archive) -> None:
    """Name each episode's task by its Inspect task too, where the archive holds more than
    one: an Inspect task's samples are numbered 1..N by default, so the logs of two tasks
    (one `eval([...])` run, or a folder of several) read as the same tasks, and coverage and
    pass^k took task B's sample 1 for another trial of task A's (`tasks 2` for 4 samples, a
    pass^2 for samples run once, `mixed outcomes` across tasks). One task's logs keep their
    sample ids as they are."""
    named = {ep.meta.get("inspect_task") for ep in archive.episodes} - {None}
    if len(named) < 2:
        return
    for ep in archive.episodes:
        inspect_task = ep.meta.get("inspect_task")
        if inspect_task is not None:
            ep.task = f"{inspect_task}/{ep.task}"


def _fold_repeats(archive: Archive) -> None:
    """Keep one episode per (run, model, scaffold, task, trial, Inspect task), as each importer
    does within its file: a directory of Inspect logs holding one log twice (a copy, a
    re-download) counted every sample twice, with a pass^2 for tasks that ran once. A repeat
    with the same result is dropped, one with another leaves the episode ungraded
    (`merge_repeat`); each is listed."""
    kept: dict[RepeatKey, int] = {}
    out: list[ArchiveEpisode] = []
    for ep in archive.episodes:
        at = kept.setdefault(repeat_key(ep), len(out))
        if at == len(out):
            out.append(ep)
        elif ep.reason in ABSENT:
            continue  # a log that lacks the sample says nothing of it
        elif out[at].reason in ABSENT:
            out[at] = ep
        else:
            archive.problems.append(LoadProblem(archive.source, None, repeat_text(
                f"episode {ep.episode_id}", ep, merge_repeat(out[at], ep))))
    if len(out) != len(archive.episodes):
        archive.episodes = out


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
    if chosen.name != "agm":  # a store keys one episode per planned administration
        _name_inspect_tasks(archive)
        _fold_repeats(archive)
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
