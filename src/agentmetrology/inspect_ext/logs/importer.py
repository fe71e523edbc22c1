"""Importer for Inspect AI `.eval` logs, read directly as a zip (no dependency on inspect-ai).

Facts about the format: a `.eval` file is a zip with `header.json` (eval spec, plan, results),
`samples/<id>_epoch_<n>.json` (one per sample and epoch) and `summaries.json`; members are often
zstd-compressed (zip method 93), which the standard library cannot read before Python 3.14, so
we decompress them with the `zstandard` package (see `zip_members`). Scores the scorer could not
produce are written as a bare `NaN` token (not valid JSON), errored samples carry an `error` and
usually no scores. Both are counted as ungraded with a reason, never dropped; an errored sample
that still carries a score is ungraded too (the error is a measurement failure, its score is not
a measurement; see `grades`).

Logs come from elsewhere, so reading is bounded (`zip_members`), a header that plans far more
episodes than the log holds is refused, and sample ids that read as the same text (`1` and
`"1"`) are refused rather than merged into one episode.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentmetrology.archive.importers.limits import (
    MAX_PLANNED_ABSENT,
    Malformed,
    count,
    repeated_key,
    twice_text,
)
from agentmetrology.archive.importers.limits import ident as _text
from agentmetrology.archive.importers.limits import kind_name as _kind
from agentmetrology.archive.importers.limits import obj as _obj
from agentmetrology.archive.importers.limits import seq as _seq
from agentmetrology.archive.model import (
    Archive,
    ArchiveEpisode,
    ArchiveEvent,
    ArchiveFormatError,
    ExecutedCall,
    LoadProblem,
    TraceSpan,
)
from agentmetrology.archive.redact import redact
from agentmetrology.edges.json_keys import KeyMarks, first_repeated
from agentmetrology.inspect_ext.logs.grades import error_text, score_value
from agentmetrology.inspect_ext.logs.grades import grade_sample as _grade
from agentmetrology.inspect_ext.logs.spans import model_span
from agentmetrology.inspect_ext.logs.zip_members import (
    MAX_MEMBER_BYTES,
    InflateLimitError,
    MemberReader,
    loads_tolerant,
    looks_like_inspect,
    member_names,
)
from agentmetrology.records.events import ACTORS

FORMAT = "inspect"
_ATTACHMENT = "attachment://"
_SAMPLE_RE = re.compile(r"^samples/.+_epoch_\d+\.json$")
# Re-exported: callers name them here (the importer's public face).
__all__ = [
    "FORMAT",
    "MAX_MEMBER_BYTES",
    "MemberReader",
    "PlannedKey",
    "load_inspect",
    "load_inspect_planned",
    "loads_tolerant",
    "looks_like_inspect",
    "resolved",
    "score_value",
]


def resolved(value: Any, attachments: dict[str, Any]) -> Any:
    """Return `value` with `attachment://HASH` strings replaced by the sample's attachment.

    Inspect moves long strings of events into the sample's `attachments`, and does so for tool
    events but not always for the model's own tool calls: unresolved, the same call would
    compare unequal to itself.
    """
    if isinstance(value, str) and value.startswith(_ATTACHMENT):
        found = attachments.get(value[len(_ATTACHMENT):])
        return found if isinstance(found, str) else value
    if isinstance(value, dict):
        return {k: resolved(v, attachments) for k, v in value.items()}
    if isinstance(value, list):
        return [resolved(v, attachments) for v in value]
    return value


def _walk_events(ep: ArchiveEpisode, events: list[Any],
                 attachments: dict[str, Any]) -> list[TraceSpan]:
    """Fill actions (tool events) and executed calls (model outputs); return model-call spans."""
    calls: list[ExecutedCall] = []
    spans: list[TraceSpan] = []
    actions = ep.events = list(ep.events)
    for i, raw in enumerate(events):
        ev = _obj(raw, f"events[{i}]")
        kind = ev.get("event")
        if kind == "tool":
            args = ev.get("arguments")
            # An actor is taken only where the log recorded one (our Inspect extension writes
            # it in the tool event's metadata); it is never inferred.
            meta = ev.get("metadata")
            actor = meta.get("actor") if isinstance(meta, dict) else None
            actions.append(ArchiveEvent(
                seq=len(actions), kind="tool_call", name=_text(ev.get("function")) or "",
                args=resolved(args, attachments) if isinstance(args, dict) else None,
                result=resolved(ev.get("result"), attachments),
                actor=actor if actor in ACTORS else None, call_id=_text(ev.get("id"))))
        elif kind == "model":
            out = _obj(ev.get("output"), f"events[{i}].output")
            for choice in _seq(out.get("choices"), f"events[{i}].output.choices")[:1]:
                message = _obj(_obj(choice, f"events[{i}].output.choices[0]").get("message"),
                               f"events[{i}].output.choices[0].message")
                for j, raw_tc in enumerate(_seq(message.get("tool_calls"),
                                                f"events[{i}] tool_calls")):
                    tc = _obj(raw_tc, f"events[{i}] tool_calls[{j}]")
                    args = tc.get("arguments")
                    calls.append(ExecutedCall(_text(tc.get("function")) or "",
                                              resolved(args, attachments)
                                              if isinstance(args, dict) else None,
                                              _text(tc.get("id"))))
            spans.append(model_span(ev, ep, i))
    ep.executed_calls = calls
    return spans


def _termination(ep: ArchiveEpisode, sample: dict[str, Any]) -> None:
    """Set the termination from the sample's error or limit fields."""
    limit = sample.get("limit")
    if sample.get("error"):
        ep.termination, ep.termination_detail = "error", redact(error_text(sample["error"]))
    elif isinstance(limit, dict) and isinstance(limit.get("type"), str) and limit["type"]:
        step = limit["type"] in ("message", "turn")
        ep.termination = "step_limit" if step else "budget_exhausted"
        ep.termination_detail = f"{limit['type']} limit"
    else:
        ep.termination = "completed"


def _sample_ids(ids: list[Any]) -> list[str]:
    """Return the distinct sample ids as text; Malformed when two read alike (1 and "1")."""
    first: dict[str, Any] = {}
    for raw in ids:
        text = _text(raw)
        if text is None:
            raise Malformed("eval.dataset.sample_ids holds a value that is not a string or "
                            "integer")
        seen = first.setdefault(text, raw)
        if type(seen) is not type(raw):
            raise Malformed(f"eval.dataset.sample_ids holds {seen!r:.40} and {raw!r:.40}, which "
                            "read as the same id; give every sample a distinct id")
    return list(first)


# Task arguments that define a condition of a run rather than which samples it holds.
CONDITION_ARGS = ("level", "condition", "profile")


class _Log:
    """The parts of an Inspect log header that every sample needs (validated)."""

    def __init__(self, header: dict[str, Any], stem: str) -> None:
        spec = _obj(header.get("eval"), "eval")
        self.model = _text(spec.get("model")) or "unknown"
        self.task = _text(spec.get("task")) or stem
        self.run = _text(spec.get("run_id")) or _text(spec.get("eval_id")) or stem
        steps = _seq(_obj(header.get("plan"), "plan").get("steps"), "plan.steps")
        self.scaffold = _text(spec.get("solver")) or ">".join(
            str(_obj(s, "plan.steps[]").get("solver")) for s in steps)
        # Logs of one task at two levels (or conditions, or profiles) are two cells, never one:
        # the task arguments that define a condition are part of the scaffold's name.
        args = spec.get("task_args")
        shown = [f"{k}={args[k]}" for k in CONDITION_ARGS
                 if isinstance(args, dict) and args.get(k) not in (None, "")]
        if shown:
            named = f"[{', '.join(shown)}]"
            self.scaffold = f"{self.scaffold} {named}" if self.scaffold else named
        results = _obj(header.get("results"), "results")
        head = _obj(results.get("headline"), "results.headline").get("scorer")
        scorers = [s.get("name") for s in _seq(spec.get("scorers"), "eval.scorers")
                   if isinstance(s, dict) and isinstance(s.get("name"), str)]
        self.scorer: str | None = (head if isinstance(head, str) and head
                                   else (scorers[0] if scorers else None))
        ds = _obj(spec.get("dataset"), "eval.dataset")
        raw_epochs = _obj(spec.get("config"), "eval.config").get("epochs")
        epochs = 1 if raw_epochs is None else count(raw_epochs)
        if not epochs:
            raise Malformed(f"eval.config.epochs is {raw_epochs!r:.40}, not a positive integer")
        self.epochs = epochs
        ids = _seq(ds.get("sample_ids"), "eval.dataset.sample_ids")
        self.sample_ids = _sample_ids(ids)
        self.seen: set[tuple[str, int]] = set()  # (sample id, epoch) already made an episode
        self.planned_count = len(self.sample_ids) * epochs
        status = header.get("status", "unknown")
        self.status = status if isinstance(status, str) else "unknown"

    def planned(self) -> Iterator[tuple[str, int]]:
        """Yield every planned (sample id, epoch)."""
        for sid in self.sample_ids:
            for epoch in range(1, self.epochs + 1):
                yield sid, epoch


def _sample_episode(log: _Log, sample: dict[str, Any], where: str,
                    archive: Archive, repeated: bool = False) -> None:
    """Add one ArchiveEpisode for an Inspect sample (or sample summary), or a load problem;
    `repeated`: the sample's member named a key twice somewhere (the sample is then kept
    ungraded as malformed, or skipped when its own id or epoch is the repeated key)."""
    try:
        twice = repeated_key(sample, repeated, ("id", "epoch"))
    except Malformed as exc:  # its own id or epoch named twice: no episode can be named
        archive.problems.append(LoadProblem(where, None, f"skipped: {exc}"))
        return
    sid = _text(sample.get("id"))
    raw_epoch = sample.get("epoch")
    epoch = 1 if raw_epoch is None else count(raw_epoch)
    if sid is None or not epoch:
        archive.problems.append(LoadProblem(where, None, "skipped: sample id must be a string or "
                                            "integer and epoch a positive integer"))
        return
    if (sid, epoch) in log.seen:
        archive.problems.append(LoadProblem(where, None, (
            f"skipped: a second sample with id {sid:.40}, epoch {epoch} (ids such as 1 and "
            '"1" are one id in the archive, so only the first is kept)')))
        return
    log.seen.add((sid, epoch))
    ep = ArchiveEpisode(
        episode_id=f"{log.run}/{sid}/{epoch}", task=sid, model=log.model, scaffold=log.scaffold,
        run=log.run, trial=epoch, meta={"inspect_task": log.task})
    try:
        if twice is not None:
            raise Malformed(twice)
        _grade(ep, sample, log.scorer)
        _termination(ep, sample)
        attachments = sample.get("attachments")
        spans = _walk_events(ep, _seq(sample.get("events"), "events"),
                             attachments if isinstance(attachments, dict) else {})
    except Malformed as exc:
        # The record cannot be trusted as a whole: keep the episode, ungraded, and say why.
        ep.grade, ep.stored_score, ep.events, ep.executed_calls = None, None, [], None
        ep.reason, ep.reason_detail = "malformed_record", str(exc)
        archive.problems.append(LoadProblem(where, None, f"malformed sample: {exc}"))
        spans = []
    archive.episodes.append(ep)
    archive.spans.extend(spans)


def _header(reader: MemberReader, names: list[str], path: Path) -> _Log:
    head_name = "header.json" if "header.json" in names else "_journal/start.json"
    if head_name not in names:
        raise ArchiveFormatError(f"{path.name}: no header.json: not an Inspect .eval log")
    where = f"{path.name}!{head_name}"
    marks = KeyMarks()
    try:
        header = reader.json(head_name, marks)
    except ArchiveFormatError:  # already names the member and what was wrong
        raise
    except ValueError as exc:
        raise ArchiveFormatError(f"{where}: not readable JSON ({exc})") from exc
    if not isinstance(header, dict):
        raise ArchiveFormatError(f"{where}: the header is {_kind(header)}, not an object")
    if marks.count:  # the model, task, scorer and plan of every sample: none can be trusted
        raise ArchiveFormatError(f"{where}: {twice_text(first_repeated(header) or [])}")
    try:
        return _Log(header, path.stem)
    except Malformed as exc:
        raise ArchiveFormatError(f"{where}: {exc}") from exc


# A planned episode of a log: run, model, solver, Inspect task, sample id, epoch.
PlannedKey = tuple[str, str, str, str, str, int]


def load_inspect(path: Path, max_member_bytes: int = MAX_MEMBER_BYTES) -> Archive:
    """Return an Archive read from an Inspect `.eval` log; errored and unscored samples stay."""
    return load_inspect_planned(path, max_member_bytes)[0]


def load_inspect_planned(path: Path, max_member_bytes: int = MAX_MEMBER_BYTES
                         ) -> tuple[Archive, set[PlannedKey]]:
    """Return `load_inspect(path)` and the episodes the log's header plans (a directory's
    copies of one log plan the same episodes, counted once)."""
    if not zipfile.is_zipfile(path):
        raise ArchiveFormatError(f"{path.name}: not a zip file, so not an Inspect .eval log")
    archive = Archive(source=path.name, format=FORMAT)
    try:
        with zipfile.ZipFile(path) as zf:
            reader = MemberReader(path, zf, max_member_bytes)
            names = member_names(zf, path)
            log = _header(reader, names, path)
            samples = sorted(n for n in names if _SAMPLE_RE.match(n))
            for name in samples:
                marks = KeyMarks()
                rec = _read_record(reader, name, archive, marks)
                if rec is not None:
                    _sample_episode(log, rec, f"{path.name}!{name}", archive,
                                    marks.count > 0)
            if not samples and "summaries.json" in names:
                _read_summaries(reader, log, archive)
    except (zipfile.BadZipFile, zipfile.LargeZipFile) as exc:
        raise ArchiveFormatError(f"{path.name}: damaged zip ({exc})") from exc
    _add_missing(archive, log)
    archive.notes.update({"log_status": log.status, "headline_scorer": log.scorer,
                          "inspect_task": log.task, "planned": log.planned_count})
    return archive, {(log.run, log.model, log.scaffold, log.task, sid, epoch)
                     for sid, epoch in log.planned()}


def _read_record(reader: MemberReader, name: str, archive: Archive,
                 marks: KeyMarks | None = None) -> dict[str, Any] | None:
    """Return one parsed sample record (objects naming a key twice marked in `marks`); an
    unreadable member becomes a load problem."""
    where = f"{reader.path.name}!{name}"
    try:
        rec = reader.json(name, marks)
    except InflateLimitError:
        raise
    except (ValueError, OSError) as exc:
        archive.problems.append(LoadProblem(where, None, redact(f"skipped: {exc}")))
        return None
    if not isinstance(rec, dict):
        archive.problems.append(LoadProblem(where, None,
                                            f"skipped: sample is {_kind(rec)}, not an object"))
        return None
    return rec


def _read_summaries(reader: MemberReader, log: _Log, archive: Archive) -> None:
    """Add episodes from summaries.json (a list of sample summaries) when no sample files exist."""
    where = f"{reader.path.name}!summaries.json"
    archive.notes["samples_from"] = "summaries.json (log has no sample files)"
    marks = KeyMarks()
    try:
        records = reader.json("summaries.json", marks)
    except InflateLimitError:
        raise
    except (ValueError, OSError) as exc:
        archive.problems.append(LoadProblem(where, None, redact(f"skipped: {exc}")))
        return
    if not isinstance(records, list):
        archive.problems.append(LoadProblem(where, None,
                                            f"skipped: {_kind(records)}, not a list of samples"))
        return
    for i, rec in enumerate(records):
        if isinstance(rec, dict):
            _sample_episode(log, rec, f"{where}[{i}]", archive, marks.count > 0)
        else:
            archive.problems.append(LoadProblem(where, None,
                                                f"entry {i} is {_kind(rec)}, not an object"))


def _add_missing(archive: Archive, log: _Log) -> None:
    """Add a visible placeholder for every planned (sample, epoch) the log does not hold."""
    have = {(e.task, e.trial) for e in archive.episodes}
    if log.planned_count - len(have) > MAX_PLANNED_ABSENT:
        # The header's plan is checked against nothing else: a tiny file declaring 10^6
        # epochs would make a million placeholder episodes out of nothing.
        raise ArchiveFormatError(
            f"{archive.source}: header plans {len(log.sample_ids)} sample(s) x {log.epochs} "
            f"epoch(s) = {log.planned_count} episodes but the log holds {len(have)}; more than "
            f"{MAX_PLANNED_ABSENT} planned episodes absent from the log is refused as implausible")
    for sid, epoch in log.planned():
        if (sid, epoch) not in have:
            archive.episodes.append(ArchiveEpisode(
                episode_id=f"{log.run}/{sid}/{epoch}", task=sid, model=log.model,
                scaffold=log.scaffold, run=log.run, trial=epoch, reason="not_in_archive",
                reason_detail=f"planned sample absent from the log (log status {log.status})",
                meta={"inspect_task": log.task}))  # whose sample it is (detect's fold reads it)
