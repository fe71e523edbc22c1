"""Importer (and writer) for the generic JSONL archive: one episode or one trace span per line.

Episode line: `{task, model, [episode_id, scaffold, run, trial, events, executed_calls, grade,
stored_score, termination, termination_detail, reason, reason_detail, replay]}`; `grade` is
`{score, passed?}`, a bare number, or null. Span line: `{span_id, parent_id, kind, model,
response_id, attempt_id, usage: {input, output, cached}, cost, [run, episode_id]}`.
A malformed line is reported with file and line number and skipped; a line nested too deeply,
holding numbers beyond the float range or an object naming a key twice (readers differ on which
value counts) is malformed too. An episode whose termination is a
measurement failure (`infra_error`, `cancelled`) is ungraded whatever grade the line stores. A
spans file from which no span can be read is refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from agentmetrology.archive.importers.limits import (
    cost,
    count,
    parse_json,
    score_outside,
    twice_text,
    without_bom,
)
from agentmetrology.archive.model import (
    Archive,
    ArchiveEpisode,
    ArchiveEvent,
    ArchiveFormatError,
    ExecutedCall,
    LoadProblem,
    ReplaySpec,
    StoredGrade,
    TraceSpan,
    is_success,
    merge_repeat,
)
from agentmetrology.archive.redact import redact
from agentmetrology.archive.replay import apply_gate
from agentmetrology.edges.files import bounded_lines
from agentmetrology.edges.json_keys import KeyMarks, first_repeated
from agentmetrology.records.canonical import canonical_json, to_plain
from agentmetrology.records.episode import MEASUREMENT_FAILURES
from agentmetrology.records.numbers import finite_float

FORMAT = "jsonl"
# One episode or span per line: a few KB, an episode with a long trajectory a few MB. A longer
# line is skipped as a problem after reading at most this much of it, never held whole.
MAX_LINE_BYTES = 64 * 1024 * 1024


class LineError(ValueError):
    """A line that parses as JSON but does not have the expected shape."""


def _opt_str(obj: dict[str, Any], key: str) -> str | None:
    val = obj.get(key)
    if val is None:
        return None
    if not isinstance(val, str | int):
        raise LineError(f"{key} must be a string")
    return str(val)


def _num(val: Any, key: str) -> float | None:
    if val is None:
        return None
    num = finite_float(val)
    if num is None:
        raise LineError(f"{key} must be a finite number or null")
    return num


def _int(val: Any, key: str) -> int:
    if val is None:
        return 0
    if not isinstance(val, int) or (num := count(val)) is None:
        raise LineError(f"{key} must be a non-negative integer (at most 2^53)")
    return num


def parse_span(obj: dict[str, Any]) -> TraceSpan:
    """Return a TraceSpan from one span line (raises LineError on a bad shape)."""
    span_id = _opt_str(obj, "span_id")
    if not span_id:
        raise LineError("span_id is required")
    usage = obj.get("usage") or {}
    if not isinstance(usage, dict):
        raise LineError("usage must be an object")
    return TraceSpan(
        span_id=span_id, parent_id=_opt_str(obj, "parent_id"),
        kind=_opt_str(obj, "kind") or "", model=_opt_str(obj, "model"),
        response_id=_opt_str(obj, "response_id"), attempt_id=_opt_str(obj, "attempt_id"),
        input_tokens=_int(usage.get("input"), "usage.input"),
        output_tokens=_int(usage.get("output"), "usage.output"),
        cached_tokens=_int(usage.get("cached"), "usage.cached"),
        cost=cost(obj.get("cost")), run=_opt_str(obj, "run"),
        episode_id=_opt_str(obj, "episode_id"),
        usage_known=usage.get("input") is not None and usage.get("output") is not None)


def _events(raw: Any) -> list[ArchiveEvent]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise LineError("events must be a list")
    out = []
    for i, ev in enumerate(raw):
        if not isinstance(ev, dict) or not isinstance(ev.get("name"), str):
            raise LineError(f"events[{i}] needs a string name")
        args = ev.get("args")
        if args is not None and not isinstance(args, dict):
            raise LineError(f"events[{i}].args must be an object or null")
        kind = ev.get("kind", "tool_call")
        if not isinstance(kind, str):
            raise LineError(f"events[{i}].kind must be a string")
        out.append(ArchiveEvent(seq=_int(ev.get("seq", i), f"events[{i}].seq"), kind=kind,
                                name=ev["name"], args=args, result=ev.get("result"),
                                actor=_opt_str(ev, "actor"), call_id=_opt_str(ev, "call_id")))
    return out


def _calls(raw: Any) -> list[ExecutedCall] | None:
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise LineError("executed_calls must be a list or null")
    out = []
    for i, c in enumerate(raw):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            raise LineError(f"executed_calls[{i}] needs a string name")
        args = c.get("args")
        out.append(ExecutedCall(c["name"], args if isinstance(args, dict) else None,
                                _opt_str(c, "call_id")))
    return out


def _grade(raw: Any) -> StoredGrade | None:
    if raw is None:
        return None
    if isinstance(raw, dict):
        score = _num(raw.get("score"), "grade.score")
        if score is None:
            return None
        passed = raw.get("passed")
        if passed is not None and not isinstance(passed, bool):
            # "false" is truthy: only a real boolean may override the score's verdict.
            raise LineError(f"grade.passed must be true, false or null, got {passed!r}")
        raw_detail = raw.get("detail")
        detail: dict[str, Any] = raw_detail if isinstance(raw_detail, dict) else {}
        return StoredGrade(score, passed if passed is not None else is_success(score), detail)
    score = _num(raw, "grade")
    return None if score is None else StoredGrade(score, is_success(score))


def _replay(raw: Any) -> ReplaySpec | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise LineError("replay must be an object")
    avail = raw.get("available")
    return ReplaySpec(mode=_opt_str(raw, "mode"),
                      requires=_names(raw.get("requires") or [], "replay.requires"),
                      available=None if avail is None else _names(avail, "replay.available"))


def _names(raw: Any, key: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise LineError(f"{key} must be a list of strings")
    return tuple(raw)


def parse_episode(obj: dict[str, Any], line: int,
                  taken: AbstractSet[tuple[Any, ...]] | None = None) -> ArchiveEpisode:
    """Return an ArchiveEpisode from one episode line (raises LineError on a bad shape); a
    line without a trial gets the smallest trial its (model, scaffold, run, task) has not
    `taken` (0 without them), as a tau2 simulation without one gets its occurrence."""
    task, model = _opt_str(obj, "task"), _opt_str(obj, "model")
    if not task or not model:
        raise LineError("task and model are required")
    run = _opt_str(obj, "run") or ""
    trial = _int(obj.get("trial"), "trial")
    if obj.get("trial") is None and taken:
        unit = (model, _opt_str(obj, "scaffold") or "", run, task)
        while (*unit, trial) in taken:
            trial += 1
    grade = _grade(obj.get("grade"))
    termination = _opt_str(obj, "termination")
    failed = termination in MEASUREMENT_FAILURES
    ep = ArchiveEpisode(
        episode_id=_opt_str(obj, "episode_id") or f"{run or model}/{task}/{trial}", task=task,
        model=model, scaffold=_opt_str(obj, "scaffold") or "", run=run, trial=trial,
        events=_events(obj.get("events")), executed_calls=_calls(obj.get("executed_calls")),
        grade=grade, stored_score=_num(obj.get("stored_score"), "stored_score"),
        termination=termination,
        termination_detail=redact(_opt_str(obj, "termination_detail") or ""),
        reason=None if grade else (_opt_str(obj, "reason") or "no_grade_recorded"),
        reason_detail=redact(_opt_str(obj, "reason_detail") or ""),
        replay=_replay(obj.get("replay")), meta={"line": line})
    if ep.stored_score is None and grade is not None:
        ep.stored_score = grade.score
    if grade is not None and (why := score_outside(grade.score, "grade")) is not None:
        ep.grade, ep.reason, ep.reason_detail = None, "score_out_of_range", why
    if failed:  # a measurement failure is never a score, whatever the line stored
        ep.grade, ep.reason = None, termination
        ep.reason_detail = ep.reason_detail or ep.termination_detail or f"termination {termination}"
        if grade is not None:
            ep.reason_detail += "; its stored grade is ignored"
    apply_gate(ep)
    return ep


def _lines(path: Path) -> Iterable[tuple[int, str | None]]:
    """Yield (line number, text) of non-blank lines; text None for a line over MAX_LINE_BYTES."""
    limit = MAX_LINE_BYTES
    with path.open("rb") as fh:
        for no, raw in enumerate(bounded_lines(fh, limit), start=1):
            if raw is None:
                yield no, None
                continue
            try:
                text = (without_bom(raw) if no == 1 else raw).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ArchiveFormatError(f"{path.name}: not UTF-8 text ({exc.reason})") from exc
            if text.strip():
                yield no, text


def _parse_line(text: str) -> dict[str, Any]:
    """Return a line's JSON object; raise LineError when it is none or names a key twice."""
    marks = KeyMarks()
    obj = parse_json(text, marks=marks)
    if not isinstance(obj, dict):
        raise LineError("line is not a JSON object")
    if marks.count:
        raise LineError(twice_text(first_repeated(obj) or []))
    return obj


def load_jsonl(path: Path, archive: Archive | None = None, spans_only: bool = False) -> Archive:
    """Return an Archive of the episodes and spans in a JSONL file; bad lines become problems."""
    archive = archive or Archive(source=path.name, format=FORMAT)
    skipped, spans_before, problems_before = 0, len(archive.spans), len(archive.problems)
    keys: dict[tuple[Any, ...], ArchiveEpisode] = {}
    for no, text in _lines(path):
        try:
            if text is None:
                raise LineError(f"line is longer than {MAX_LINE_BYTES:,} bytes, the limit for "
                                "one episode or span")
            obj = _parse_line(text)
            if "span_id" in obj:
                archive.spans.append(parse_span(obj))
            elif spans_only:
                raise LineError("not a span (no span_id)")
            else:
                ep = parse_episode(obj, no, keys.keys())
                ident = (ep.model, ep.scaffold, ep.run, ep.task, ep.trial)
                if (kept := keys.get(ident)) is not None:
                    # One (cell, run, task, trial) is one episode: a second line for it was a
                    # second trial in the audit and, silently, one of the two in a comparison;
                    # one with another result leaves the episode ungraded (merge_repeat).
                    why = merge_repeat(kept, ep)
                    raise LineError(f"task {ep.task} trial {ep.trial} of {ep.model} repeats "
                                    "an earlier line's" + ("" if why is None else
                                                           f"; kept ungraded: {why}"))
                keys[ident] = ep
                archive.episodes.append(ep)
        except (LineError, TypeError, ValueError) as exc:  # JSONDecodeError is a ValueError
            skipped += 1
            msg = getattr(exc, "msg", None) or str(exc)
            archive.problems.append(LoadProblem(path.name, no, redact(f"skipped: {msg}")))
    key = "span_lines_skipped" if spans_only else "lines_skipped"
    archive.notes[key] = archive.notes.get(key, 0) + skipped
    if spans_only and len(archive.spans) == spans_before:
        first = next((p for p in archive.problems[problems_before:]), None)
        raise ArchiveFormatError(
            f"{path.name}: no trace span could be read from the spans file"
            + (f" (line {first.line}: {first.message})" if first else " (it holds no lines)"))
    return archive


def episode_to_line(ep: ArchiveEpisode) -> dict[str, Any]:
    """Return the JSONL line object for an episode (inverse of parse_episode)."""
    line: dict[str, Any] = to_plain(ep)
    line.pop("meta", None)
    line.pop("invalid_replay", None)  # recomputed by the gate on load
    if ep.grade is None:
        line["grade"] = None
    return line


def span_to_line(span: TraceSpan) -> dict[str, Any]:
    """Return the JSONL line object for a span (inverse of parse_span)."""
    return {"span_id": span.span_id, "parent_id": span.parent_id, "kind": span.kind,
            "model": span.model, "response_id": span.response_id,
            "attempt_id": span.attempt_id, "cost": span.cost, "run": span.run,
            "episode_id": span.episode_id,
            # unknown counts stay unknown (null), never a known 0, when read back
            "usage": {"input": span.input_tokens if span.usage_known else None,
                      "output": span.output_tokens if span.usage_known else None,
                      "cached": span.cached_tokens}}


def write_jsonl(path: Path, items: Iterable[dict[str, Any]]) -> None:
    """Write one canonical JSON object per line."""
    with path.open("wb") as fh:
        for item in items:
            fh.write(canonical_json(item) + b"\n")
