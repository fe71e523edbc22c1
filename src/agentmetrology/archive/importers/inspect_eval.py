"""Importer for Inspect AI `.eval` logs, read directly as a zip (no dependency on inspect-ai).

Facts about the format: a `.eval` file is a zip with `header.json` (eval spec, plan, results),
`samples/<id>_epoch_<n>.json` (one per sample and epoch) and `summaries.json`; members are often
zstd-compressed (zip method 93), which the standard library cannot read before Python 3.14, so
we decompress them with the `zstandard` package. Scores the scorer could not produce are written
as a bare `NaN` token (not valid JSON), errored samples carry an `error` and usually no scores.
Both are counted as ungraded with a reason, never dropped; an errored sample that still carries
a score is ungraded too (the error is a measurement failure, its score is not a measurement).

Logs come from elsewhere, so reading is bounded: every member is stream-decompressed with a hard
cap on the bytes actually produced (a member's declared size is not trusted), the whole log may
inflate to at most TOTAL_FACTOR times that cap, only stored, deflate and zstd members are read,
and a header that plans far more episodes than the log holds is refused.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentmetrology.archive.importers.limits import (
    JSON_MEMORY_FACTOR,
    MAX_PLANNED_ABSENT,
    Malformed,
    TooCostlyError,
    count,
    parse_json,
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
    StoredGrade,
    TraceSpan,
    is_success,
)
from agentmetrology.archive.redact import redact
from agentmetrology.records.events import ACTORS
from agentmetrology.records.numbers import finite_float

FORMAT = "inspect"
ZSTD_METHOD = 93
READABLE_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, ZSTD_METHOD)
MAX_MEMBER_BYTES = 64 * 1024 * 1024  # default cap on the bytes one member may inflate to
TOTAL_FACTOR = 16  # the whole log may inflate to this many times the member cap
_CHUNK = 1 << 20
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_LETTER_SCORES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}  # correct, incorrect, partial, no answer
_ATTACHMENT = "attachment://"
_SAMPLE_RE = re.compile(r"^samples/.+_epoch_\d+\.json$")


class InflateLimitError(ArchiveFormatError):
    """A member (or the whole log) inflates past the cap: the log is refused, not skipped."""


def looks_like_inspect(path: Path) -> bool:
    """Return True when the file is a zip with an Inspect header or journal member."""
    if not zipfile.is_zipfile(path):
        return False
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return False
    return "header.json" in names or "_journal/start.json" in names


def loads_tolerant(raw: bytes | str) -> Any:
    """Return parsed JSON accepting bare NaN / Infinity tokens (they become float NaN / inf)."""
    return parse_json(raw)


class MemberReader:
    """Reads zip members with a cap on the bytes actually inflated, per member and in total."""

    def __init__(self, path: Path, zf: zipfile.ZipFile, max_member: int = MAX_MEMBER_BYTES):
        self.path, self.zf, self.cap = path, zf, max_member
        self.total_cap, self.used = max_member * TOTAL_FACTOR, 0

    def _refuse(self, name: str, what: str) -> InflateLimitError:
        return InflateLimitError(
            f"{self.path.name}!{name}: {what}; refused as a possible zip bomb (raise the cap "
            "with --max-member-mb if the log is genuine)")

    def json(self, name: str) -> Any:
        """Return one member parsed as JSON, refusing text whose parse would need too much."""
        raw = self.read(name)
        try:
            return parse_json(raw, max_memory=JSON_MEMORY_FACTOR * self.cap)
        except TooCostlyError as exc:
            raise self._refuse(name, str(exc)) from exc

    def read(self, name: str) -> bytearray:
        """Return the bytes of one member (stored, deflate or zstd), within the caps."""
        info = self.zf.getinfo(name)
        if info.compress_type not in READABLE_METHODS:
            raise ArchiveFormatError(f"{self.path.name}!{name}: unsupported zip compression "
                                     f"method {info.compress_type}")
        if info.file_size > self.cap:
            raise self._refuse(name, f"declares {info.file_size} bytes, more than the "
                                     f"{self.cap}-byte member cap")
        chunks = (self._zstd_chunks(info) if info.compress_type == ZSTD_METHOD
                  else self._zip_chunks(info))
        buf = bytearray()
        for chunk in chunks:
            buf += chunk
            if len(buf) > info.file_size:  # zipfile stops at the declared size; zstd may not
                raise ArchiveFormatError(f"{self.path.name}!{name}: inflates beyond its declared "
                                         f"{info.file_size} bytes (damaged or hostile member)")
            if self.used + len(buf) > self.total_cap:
                raise self._refuse(name, f"the log inflates past {self.total_cap} bytes in total")
        self.used += len(buf)
        if info.compress_type == ZSTD_METHOD:
            if len(buf) < info.file_size:
                raise ArchiveFormatError(f"{self.path.name}!{name}: zstd member inflates to "
                                         f"{len(buf)} bytes, not the declared {info.file_size}")
            if zlib.crc32(buf) != info.CRC:
                raise ArchiveFormatError(f"{self.path.name}!{name}: CRC mismatch")
        return buf

    def _zip_chunks(self, info: zipfile.ZipInfo) -> Iterator[bytes]:
        """Yield a stored or deflate member in bounded chunks (zipfile checks size and CRC)."""
        try:
            with self.zf.open(info) as fh:
                while chunk := fh.read(_CHUNK):
                    yield chunk
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
            raise ArchiveFormatError(f"{self.path.name}!{info.filename}: {exc}") from exc
        except RuntimeError as exc:  # zipfile's "File is encrypted, password required"
            raise ArchiveFormatError(f"{self.path.name}!{info.filename}: {exc}") from exc

    def _zstd_chunks(self, info: zipfile.ZipInfo) -> Iterator[bytes]:
        """Yield a zstd member (method 93, unreadable by zipfile before 3.14) in bounded chunks."""
        try:
            import zstandard
        except ImportError as exc:
            raise ArchiveFormatError(
                "this .eval log has zstd-compressed members; install the 'zstandard' package "
                "(pip install zstandard) to read it") from exc
        with self.path.open("rb") as fh:
            fh.seek(info.header_offset)
            head = fh.read(_LOCAL_HEADER.size)
            if len(head) != _LOCAL_HEADER.size or head[:4] != b"PK\x03\x04":
                raise ArchiveFormatError(f"{self.path.name}!{info.filename}: bad local zip header")
            header = _LOCAL_HEADER.unpack(head)
            fh.seek(info.header_offset + _LOCAL_HEADER.size + header[9] + header[10])
            raw = fh.read(info.compress_size)
        try:
            reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw))
            while chunk := reader.read(_CHUNK):
                yield chunk
        except zstandard.ZstdError as exc:
            raise ArchiveFormatError(f"{self.path.name}!{info.filename}: zstd: {exc}") from exc


def score_value(value: Any) -> tuple[float | None, str]:
    """Return (numeric score, '') or (None, reason code) for one Inspect score value."""
    if value is None:
        return None, "unscored"
    if isinstance(value, bool):
        return float(value), ""
    if isinstance(value, int | float):
        num = finite_float(value)
        return (None, "unscored") if num is None else (num, "")
    if isinstance(value, str):
        if value in _LETTER_SCORES:
            return _LETTER_SCORES[value], ""
        try:
            num = finite_float(float(value))
        except ValueError:
            return None, "unsupported_score"
        return (num, "") if num is not None else (None, "unscored")
    return None, "unsupported_score"  # dict / list values need a reducer we do not guess


def _error_text(err: Any) -> str:
    """Return a sample's error message (dict in sample files, string in summaries)."""
    if isinstance(err, dict):
        msg = err.get("message", "")
        return msg if isinstance(msg, str) else _kind(msg)
    if isinstance(err, str):
        return err
    return _kind(err) if err else ""


def _shown(raw: Any) -> str:
    if isinstance(raw, float) and raw != raw:
        return "NaN"
    if isinstance(raw, float | int) and not isinstance(raw, bool) and finite_float(raw) is None:
        return "non-finite or out-of-range number"
    return type(raw).__name__


def _grade(ep: ArchiveEpisode, sample: dict[str, Any], scorer: str | None) -> None:
    """Set the episode's grade, or its ungraded reason, from the sample's scores and error."""
    err = _error_text(sample.get("error"))
    scores = sample.get("scores")
    if scores is not None and not isinstance(scores, dict):
        ep.reason = "unsupported_score"
        ep.reason_detail = f"scores is {_kind(scores)}, not an object of named scores"
        return
    scores = scores or {}
    name = scorer if scorer in scores else (sorted(scores)[0] if scores else None)
    if name is None:
        ep.reason = "sample_error" if err else "unscored"
        ep.reason_detail = redact(err) if err else "no score recorded for this sample"
        return
    entry = scores[name]
    if not isinstance(entry, dict):
        ep.reason = "unsupported_score"
        ep.reason_detail = f"scorer {name}: score is {_kind(entry)}, not a score object"
        return
    num, why = score_value(entry.get("value"))
    if err:  # a measurement failure is never a score, even when the scorer stored one
        ep.reason, ep.stored_score = "sample_error", num
        ep.reason_detail = redact(err) + ("; its stored score is ignored" if num is not None
                                          else "")
        return
    if num is None:
        ep.reason = why
        ep.reason_detail = f"scorer {name}: value {_shown(entry.get('value'))}"
        return
    ep.grade = StoredGrade(score=num, passed=is_success(num),
                           detail={"scorer": name, "value": entry.get("value")})
    ep.stored_score = num


def _resolved(value: Any, attachments: dict[str, Any]) -> Any:
    """Return `value` with `attachment://HASH` strings replaced by the sample's attachment.

    Inspect moves long strings of events into the sample's `attachments`, and does so for tool
    events but not always for the model's own tool calls: unresolved, the same call would
    compare unequal to itself.
    """
    if isinstance(value, str) and value.startswith(_ATTACHMENT):
        found = attachments.get(value[len(_ATTACHMENT):])
        return found if isinstance(found, str) else value
    if isinstance(value, dict):
        return {k: _resolved(v, attachments) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolved(v, attachments) for v in value]
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
                args=_resolved(args, attachments) if isinstance(args, dict) else None,
                result=_resolved(ev.get("result"), attachments),
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
                                              _resolved(args, attachments)
                                              if isinstance(args, dict) else None,
                                              _text(tc.get("id"))))
            spans.append(_span(ev, ep, i))
    ep.executed_calls = calls
    return spans


def _span(ev: dict[str, Any], ep: ArchiveEpisode, index: int) -> TraceSpan:
    """Return a model-call TraceSpan for one Inspect model event."""
    usage = _obj(_obj(ev.get("output"), "output").get("usage"), f"events[{index}].output.usage")
    response = _obj(_obj(ev.get("call"), f"events[{index}].call").get("response"),
                    f"events[{index}].call.response")
    uuid = _text(ev.get("uuid"))
    model = ev.get("model")
    return TraceSpan(
        span_id=uuid or f"{ep.episode_id}/model/{index}", parent_id=None,
        kind="model", model=model if isinstance(model, str) else None,
        response_id=response.get("id") if isinstance(response.get("id"), str) else None,
        # Inspect's input_tokens leave out the cache's reads and writes; a span's input tokens
        # include them (the cached ones are a part of the input, as in BillableAttempt).
        attempt_id=uuid, input_tokens=(_tokens(usage, "input_tokens", index)
                                       + _tokens(usage, "input_tokens_cache_read", index)
                                       + _tokens(usage, "input_tokens_cache_write", index)),
        output_tokens=_tokens(usage, "output_tokens", index),
        cached_tokens=_tokens(usage, "input_tokens_cache_read", index),
        cost=finite_float(usage.get("total_cost")), run=ep.run, episode_id=ep.episode_id)


def _tokens(usage: dict[str, Any], key: str, index: int) -> int:
    raw = usage.get(key)
    if raw is None:
        return 0
    value = count(raw)
    if value is None:
        raise Malformed(f"events[{index}].output.usage.{key} is not a token count")
    return value


def _termination(ep: ArchiveEpisode, sample: dict[str, Any]) -> None:
    """Set the termination from the sample's error or limit fields."""
    limit = sample.get("limit")
    if sample.get("error"):
        ep.termination, ep.termination_detail = "error", redact(_error_text(sample["error"]))
    elif isinstance(limit, dict) and isinstance(limit.get("type"), str) and limit["type"]:
        step = limit["type"] in ("message", "turn")
        ep.termination = "step_limit" if step else "budget_exhausted"
        ep.termination_detail = f"{limit['type']} limit"
    else:
        ep.termination = "completed"


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
        texts = [_text(i) for i in ids]
        if None in texts:
            raise Malformed("eval.dataset.sample_ids holds a value that is not a string or "
                            "integer")
        self.sample_ids = list(dict.fromkeys(t for t in texts if t is not None))
        self.planned_count = len(self.sample_ids) * epochs
        status = header.get("status", "unknown")
        self.status = status if isinstance(status, str) else "unknown"

    def planned(self) -> Iterator[tuple[str, int]]:
        """Yield every planned (sample id, epoch)."""
        for sid in self.sample_ids:
            for epoch in range(1, self.epochs + 1):
                yield sid, epoch


def _sample_episode(log: _Log, sample: dict[str, Any], where: str,
                    archive: Archive) -> None:
    """Add one ArchiveEpisode for an Inspect sample (or sample summary), or a load problem."""
    sid = _text(sample.get("id"))
    raw_epoch = sample.get("epoch")
    epoch = 1 if raw_epoch is None else count(raw_epoch)
    if sid is None or not epoch:
        archive.problems.append(LoadProblem(where, None, "skipped: sample id must be a string or "
                                            "integer and epoch a positive integer"))
        return
    ep = ArchiveEpisode(
        episode_id=f"{log.run}/{sid}/{epoch}", task=sid, model=log.model, scaffold=log.scaffold,
        run=log.run, trial=epoch, meta={"inspect_task": log.task})
    try:
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
    try:
        header = reader.json(head_name)
    except ArchiveFormatError:  # already names the member and what was wrong
        raise
    except ValueError as exc:
        raise ArchiveFormatError(f"{where}: not readable JSON ({exc})") from exc
    if not isinstance(header, dict):
        raise ArchiveFormatError(f"{where}: the header is {_kind(header)}, not an object")
    try:
        return _Log(header, path.stem)
    except Malformed as exc:
        raise ArchiveFormatError(f"{where}: {exc}") from exc


def load_inspect(path: Path, max_member_bytes: int = MAX_MEMBER_BYTES) -> Archive:
    """Return an Archive read from an Inspect `.eval` log; errored and unscored samples stay."""
    if not zipfile.is_zipfile(path):
        raise ArchiveFormatError(f"{path.name}: not a zip file, so not an Inspect .eval log")
    archive = Archive(source=path.name, format=FORMAT)
    try:
        with zipfile.ZipFile(path) as zf:
            reader = MemberReader(path, zf, max_member_bytes)
            names = zf.namelist()
            log = _header(reader, names, path)
            samples = sorted(n for n in names if _SAMPLE_RE.match(n))
            for name in samples:
                rec = _read_record(reader, name, archive)
                if rec is not None:
                    _sample_episode(log, rec, f"{path.name}!{name}", archive)
            if not samples and "summaries.json" in names:
                _read_summaries(reader, log, archive)
    except (zipfile.BadZipFile, zipfile.LargeZipFile) as exc:
        raise ArchiveFormatError(f"{path.name}: damaged zip ({exc})") from exc
    _add_missing(archive, log)
    archive.notes.update({"log_status": log.status, "headline_scorer": log.scorer,
                          "inspect_task": log.task, "planned": log.planned_count})
    return archive


def _read_record(reader: MemberReader, name: str, archive: Archive) -> dict[str, Any] | None:
    """Return one parsed sample record; an unreadable member becomes a load problem."""
    where = f"{reader.path.name}!{name}"
    try:
        rec = reader.json(name)
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
    try:
        records = reader.json("summaries.json")
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
            _sample_episode(log, rec, f"{where}[{i}]", archive)
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
                reason_detail=f"planned sample absent from the log (log status {log.status})"))
