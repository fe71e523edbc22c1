"""Importer for Inspect AI `.eval` logs, read directly as a zip (no dependency on inspect-ai).

Facts about the format: a `.eval` file is a zip with `header.json` (eval spec, plan, results),
`samples/<id>_epoch_<n>.json` (one per sample and epoch) and `summaries.json`; members are often
zstd-compressed (zip method 93), which the standard library cannot read before Python 3.14, so
we decompress them with the `zstandard` package. Scores the scorer could not produce are written
as a bare `NaN` token (not valid JSON), errored samples carry an `error` and usually no scores.
Both are counted as ungraded with a reason, never dropped.
"""

from __future__ import annotations

import json
import math
import re
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

from agentmetrology.archive.model import (
    Archive,
    ArchiveEpisode,
    ArchiveEvent,
    ArchiveFormatError,
    ExecutedCall,
    LoadProblem,
    StoredGrade,
    TraceSpan,
    is_success,
)
from agentmetrology.archive.redact import redact

FORMAT = "inspect"
ZSTD_METHOD = 93
MAX_MEMBER_BYTES = 512 * 1024 * 1024  # refuse members that would inflate beyond this
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_LETTER_SCORES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}  # correct, incorrect, partial, no answer
_SAMPLE_RE = re.compile(r"^samples/.+_epoch_\d+\.json$")


def looks_like_inspect(path: Path) -> bool:
    """Return True when the file is a zip with an Inspect header or journal member."""
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
    return "header.json" in names or "_journal/start.json" in names


def loads_tolerant(raw: bytes | str) -> Any:
    """Return parsed JSON accepting bare NaN / Infinity tokens (they become float NaN / inf)."""
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    return json.loads(text, parse_constant=float)


def _zstd_decompress(raw: bytes, size: int) -> bytes:
    """Return zstd-decompressed bytes, importing `zstandard` lazily with a clear error."""
    try:
        import zstandard
    except ImportError as exc:
        raise ArchiveFormatError(
            "this .eval log has zstd-compressed members; install the 'zstandard' package "
            "(pip install zstandard) to read it") from exc
    reader = zstandard.ZstdDecompressor().stream_reader(raw)
    out = reader.read(size + 1)
    if len(out) != size:
        raise ArchiveFormatError("zstd member inflates to a size other than declared")
    return bytes(out)


def read_member(path: Path, zf: zipfile.ZipFile, name: str) -> bytes:
    """Return the bytes of one zip member, handling stored, deflate and zstd (93) methods."""
    info = zf.getinfo(name)
    if info.file_size > MAX_MEMBER_BYTES:
        raise ArchiveFormatError(f"{name}: member too large ({info.file_size} bytes)")
    if info.compress_type != ZSTD_METHOD:
        return zf.read(name)
    with path.open("rb") as fh:
        fh.seek(info.header_offset)
        header = _LOCAL_HEADER.unpack(fh.read(_LOCAL_HEADER.size))
        if header[0] != b"PK\x03\x04":
            raise ArchiveFormatError(f"{name}: bad local zip header")
        fh.seek(info.header_offset + _LOCAL_HEADER.size + header[9] + header[10])
        raw = fh.read(info.compress_size)
    data = _zstd_decompress(raw, info.file_size)
    if zlib.crc32(data) != info.CRC:
        raise ArchiveFormatError(f"{name}: CRC mismatch")
    return data


def _score_value(value: Any) -> tuple[float | None, str]:
    """Return (numeric score, '') or (None, reason code) for one Inspect score value."""
    if value is None:
        return None, "unscored"
    if isinstance(value, bool):
        return float(value), ""
    if isinstance(value, int | float):
        return (None, "unscored") if not math.isfinite(value) else (float(value), "")
    if isinstance(value, str):
        if value in _LETTER_SCORES:
            return _LETTER_SCORES[value], ""
        try:
            num = float(value)
        except ValueError:
            return None, "unsupported_score"
        return (num, "") if math.isfinite(num) else (None, "unscored")
    return None, "unsupported_score"  # dict / list values need a reducer we do not guess


def _error_text(err: Any) -> str:
    """Return a sample's error message (dict in sample files, string in summaries)."""
    if isinstance(err, dict):
        return str(err.get("message", ""))
    return str(err) if err else ""


def _grade(ep: ArchiveEpisode, sample: dict[str, Any], scorer: str | None) -> None:
    """Set the episode's grade, or its ungraded reason, from the sample's scores and error."""
    scores = sample.get("scores") or {}
    err = _error_text(sample.get("error"))
    name = scorer if scorer in scores else (sorted(scores)[0] if scores else None)
    if name is None:
        ep.reason = "sample_error" if err else "unscored"
        ep.reason_detail = redact(err) if err else "no score recorded for this sample"
        return
    entry = scores[name] if isinstance(scores[name], dict) else {"value": scores[name]}
    num, why = _score_value(entry.get("value"))
    if num is None:
        ep.reason = why
        raw = entry.get("value")
        shown = "NaN" if isinstance(raw, float) and math.isnan(raw) else type(raw).__name__
        ep.reason_detail = f"scorer {name}: value {shown}"
        if err:
            ep.reason_detail += f"; error: {redact(err)}"
        return
    ep.grade = StoredGrade(score=num, passed=is_success(num),
                           detail={"scorer": name, "value": entry.get("value")})
    ep.stored_score = num
    if err:
        ep.meta["error_scored"] = redact(err)  # score_on_error: graded, but keep the error visible


def _walk_events(ep: ArchiveEpisode, events: list[dict[str, Any]],
                 spans: list[TraceSpan]) -> None:
    """Fill actions (tool events), executed calls (model outputs) and model-call spans."""
    calls: list[ExecutedCall] = []
    for ev in events:
        kind = ev.get("event")
        if kind == "tool":
            ep.events.append(ArchiveEvent(
                seq=len(ep.events), kind="tool_call", name=str(ev.get("function", "")),
                args=ev.get("arguments") if isinstance(ev.get("arguments"), dict) else None,
                result=ev.get("result"), call_id=ev.get("id")))
        elif kind == "model":
            out = ev.get("output") or {}
            for choice in (out.get("choices") or [])[:1]:
                for tc in (choice.get("message") or {}).get("tool_calls") or []:
                    args = tc.get("arguments")
                    calls.append(ExecutedCall(str(tc.get("function", "")),
                                              args if isinstance(args, dict) else None,
                                              tc.get("id")))
            spans.append(_span(ev, ep))
    ep.executed_calls = calls


def _span(ev: dict[str, Any], ep: ArchiveEpisode) -> TraceSpan:
    """Return a model-call TraceSpan for one Inspect model event."""
    usage = (ev.get("output") or {}).get("usage") or {}
    response = ((ev.get("call") or {}).get("response") or {})
    cost = usage.get("total_cost")
    return TraceSpan(
        span_id=str(ev.get("uuid") or f"{ep.episode_id}/model/{id(ev)}"), parent_id=None,
        kind="model", model=ev.get("model"),
        response_id=response.get("id") if isinstance(response.get("id"), str) else None,
        attempt_id=ev.get("uuid"), input_tokens=int(usage.get("input_tokens") or 0),
        output_tokens=int(usage.get("output_tokens") or 0),
        cached_tokens=int(usage.get("input_tokens_cache_read") or 0),
        cost=float(cost) if isinstance(cost, int | float) else None,
        run=ep.run, episode_id=ep.episode_id)


def _termination(ep: ArchiveEpisode, sample: dict[str, Any]) -> None:
    """Set the termination from the sample's error or limit fields."""
    limit = sample.get("limit")
    if sample.get("error"):
        ep.termination, ep.termination_detail = "error", redact(_error_text(sample["error"]))
    elif isinstance(limit, dict) and limit.get("type"):
        step = limit["type"] in ("message", "turn")
        ep.termination = "step_limit" if step else "budget_exhausted"
        ep.termination_detail = f"{limit['type']} limit"
    else:
        ep.termination = "completed"


class _Log:
    """The parts of an Inspect log header that every sample needs."""

    def __init__(self, header: dict[str, Any], stem: str) -> None:
        spec = header.get("eval") or {}
        self.model = str(spec.get("model", "unknown"))
        self.task = str(spec.get("task", stem))
        self.run = str(spec.get("run_id") or spec.get("eval_id") or stem)
        steps = (header.get("plan") or {}).get("steps") or []
        self.scaffold = str(spec.get("solver") or ">".join(str(s.get("solver")) for s in steps))
        results = header.get("results") or {}
        head = (results.get("headline") or {}).get("scorer")
        scorers = [s.get("name") for s in spec.get("scorers") or [] if isinstance(s, dict)]
        self.scorer: str | None = head or (scorers[0] if scorers else None)
        ds = spec.get("dataset") or {}
        epochs = int((spec.get("config") or {}).get("epochs") or 1)
        ids = ds.get("sample_ids")
        self.planned = [(str(i), e) for i in ids for e in range(1, epochs + 1)] if ids else []
        self.status = str(header.get("status", "unknown"))


def _sample_episode(log: _Log, sample: dict[str, Any], spans: list[TraceSpan]) -> ArchiveEpisode:
    """Return one ArchiveEpisode for an Inspect sample (or sample summary)."""
    sid, epoch = str(sample.get("id")), int(sample.get("epoch") or 1)
    ep = ArchiveEpisode(
        episode_id=f"{log.run}/{sid}/{epoch}", task=sid, model=log.model, scaffold=log.scaffold,
        run=log.run, trial=epoch, meta={"inspect_task": log.task})
    _grade(ep, sample, log.scorer)
    _termination(ep, sample)
    if isinstance(sample.get("events"), list):
        _walk_events(ep, sample["events"], spans)
    return ep


def load_inspect(path: Path) -> Archive:
    """Return an Archive read from an Inspect `.eval` log; errored and unscored samples stay."""
    if not zipfile.is_zipfile(path):
        raise ArchiveFormatError(f"{path.name}: not a zip file, so not an Inspect .eval log")
    archive = Archive(source=path.name, format=FORMAT)
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        head_name = "header.json" if "header.json" in names else "_journal/start.json"
        if head_name not in names:
            raise ArchiveFormatError(f"{path.name}: no header.json: not an Inspect .eval log")
        log = _Log(loads_tolerant(read_member(path, zf, head_name)), path.stem)
        samples = sorted(n for n in names if _SAMPLE_RE.match(n))
        records = _read_samples(path, zf, samples, archive)
        if not samples and "summaries.json" in names:
            records = loads_tolerant(read_member(path, zf, "summaries.json"))
            archive.notes["samples_from"] = "summaries.json (log has no sample files)"
    for rec in records:
        archive.episodes.append(_sample_episode(log, rec, archive.spans))
    _add_missing(archive, log)
    archive.notes.update({"log_status": log.status, "headline_scorer": log.scorer,
                          "inspect_task": log.task, "planned": len(log.planned)})
    return archive


def _read_samples(path: Path, zf: zipfile.ZipFile, names: list[str],
                  archive: Archive) -> list[dict[str, Any]]:
    """Return parsed sample records; unreadable members become load problems."""
    out: list[dict[str, Any]] = []
    for name in names:
        try:
            rec = loads_tolerant(read_member(path, zf, name))
        except (ValueError, zipfile.BadZipFile, OSError) as exc:
            archive.problems.append(LoadProblem(f"{path.name}!{name}", None, redact(str(exc))))
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def _add_missing(archive: Archive, log: _Log) -> None:
    """Add a visible placeholder for every planned (sample, epoch) the log does not hold."""
    have = {(e.task, e.trial) for e in archive.episodes}
    for sid, epoch in log.planned:
        if (sid, epoch) not in have:
            archive.episodes.append(ArchiveEpisode(
                episode_id=f"{log.run}/{sid}/{epoch}", task=sid, model=log.model,
                scaffold=log.scaffold, run=log.run, trial=epoch, reason="not_in_archive",
                reason_detail=f"planned sample absent from the log (log status {log.status})"))
