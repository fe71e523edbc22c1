"""Importer for tau-bench result files (a JSON list of rows {task_id, reward, info, traj, trial}).

Facts about the format (from the released historical trajectories): `info.reward_info` is null
when the grader never ran, and such rows were stored with reward 0; `traj` is an OpenAI-style
message list where an assistant message carries at most one tool call and the tool's answer is
the message right after it. Tool-call ids are sometimes reused within a row, so calls and results
are paired by position, never by id. A row of the wrong shape (a `traj` that is not a list of
messages, an `info` that is not an object, ...) is kept as an ungraded `malformed_record` episode
and reported as a load problem naming the row; nothing in a row can raise past the importer. So is
a row whose tool-call arguments (JSON text) name a key twice, and a row in which a JSON object
names a key twice, with no stored score either: readers differ on which value counts. A row
naming its own task_id or trial twice is skipped.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from agentmetrology.archive.importers.limits import (
    MAX_PLANNED_ABSENT,
    JsonDoc,
    Malformed,
    count,
    ident,
    kind_name,
    obj,
    parse_doc,
    parse_json,
    repeated_key,
    score_outside,
    seq,
    twice_text,
    unpack,
    without_bom,
)
from agentmetrology.archive.model import (
    Archive,
    ArchiveEpisode,
    ArchiveEvent,
    ArchiveFormatError,
    LoadProblem,
    StoredGrade,
    is_success,
    merge_repeat,
    repeat_text,
)
from agentmetrology.edges import files
from agentmetrology.edges.json_keys import KeyMarks, first_repeated
from agentmetrology.records.numbers import finite_float

FORMAT = "taubench"
# A result file is parsed whole (JSON has no lines to stream): the released files are a few MB,
# and 256 MiB bounds what parsing can take (several times the text, as Python objects).
MAX_FILE_BYTES = 256 * 1024 * 1024
STEP_CAP = 30  # tau-bench's default agent step cap: 2 + 2 * 30 = 62 messages
STOP_TOKEN = "###STOP###"
KEY_FIELDS = ("task_id", "trial")  # a row naming one of them twice names no episode
TRANSFER_TOOL = "transfer_to_human_agents"
_DOMAINS = ("airline", "retail")


def looks_like_taubench(data: Any) -> bool:
    """Return True when parsed JSON has the tau-bench row shape."""
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        return False
    return {"task_id", "reward", "info", "traj"} <= set(data[0])


def _model_and_domain(stem: str) -> tuple[str, str]:
    """Split a file stem like 'gpt-4o-airline' into model and domain (domain may be '')."""
    for dom in _DOMAINS:
        if stem.endswith("-" + dom):
            return stem[: -len(dom) - 1], dom
    return stem, ""


def _parse_args(raw: Any) -> dict[str, Any] | None:
    """Return tool-call arguments as a dict (they are stored as a JSON string), or None."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        marks = KeyMarks()
        try:
            val = parse_json(raw, marks=marks)
        except ValueError:  # not JSON, or nested too deeply: no readable arguments
            return None
        if marks.count:
            raise Malformed(f"tool-call arguments: {twice_text(first_repeated(val) or [])}")
        return val if isinstance(val, dict) else None
    return None


def _messages(raw: Any) -> list[dict[str, Any]]:
    """Return the trajectory as a list of message objects (raises Malformed otherwise)."""
    traj = seq(raw, "traj")
    for i, msg in enumerate(traj):
        m = obj(msg, f"traj[{i}]")
        if m.get("role") == "assistant":
            for j, call in enumerate(seq(m.get("tool_calls"), f"traj[{i}].tool_calls")):
                obj(obj(call, f"traj[{i}].tool_calls[{j}]").get("function"),
                    f"traj[{i}].tool_calls[{j}].function")
    return traj


def _pair_tool_calls(traj: list[dict[str, Any]]) -> tuple[list[ArchiveEvent], dict[str, int]]:
    """Return tool-call events (call paired with the next message's tool result) and counts."""
    events: list[ArchiveEvent] = []
    stats: Counter[str] = Counter()
    ids: list[str] = []
    for i, msg in enumerate(traj):
        if msg.get("role") == "tool":
            prev = traj[i - 1] if i > 0 else {}
            if not (prev.get("role") == "assistant" and prev.get("tool_calls")):
                stats["orphan_tool_messages"] += 1
            continue
        calls = (msg.get("tool_calls") or []) if msg.get("role") == "assistant" else []
        for call in calls:
            fn = call.get("function") or {}
            nxt = traj[i + 1] if i + 1 < len(traj) else None
            result = nxt.get("content") if nxt is not None and nxt.get("role") == "tool" else None
            if nxt is None or nxt.get("role") != "tool":
                stats["calls_without_result"] += 1
            elif nxt.get("name") not in (None, fn.get("name")):
                stats["result_name_mismatch"] += 1
            call_id = ident(call.get("id")) or None
            if call_id:
                ids.append(call_id)
            events.append(ArchiveEvent(
                seq=len(events), kind="tool_call", name=ident(fn.get("name")) or "",
                args=_parse_args(fn.get("arguments")), result=result, call_id=call_id,
            ))
    stats["reused_call_ids"] = len(ids) - len(set(ids))
    return events, dict(stats)


def _ending(traj: list[dict[str, Any]], events: list[ArchiveEvent]) -> tuple[str | None, str]:
    """Return (termination, detail) from the ending event recorded in the trajectory."""
    last = traj[-1] if traj else {}
    if last.get("role") == "user" and STOP_TOKEN in str(last.get("content") or ""):
        return "submitted", "user ended the conversation"
    if events and events[-1].name == TRANSFER_TOOL:
        return "submitted", "agent transferred to a human agent"
    steps = sum(1 for m in traj if m.get("role") == "assistant")
    if steps >= STEP_CAP:
        return "step_limit", f"{steps} agent steps ({len(traj)} messages), no ending event"
    return None, f"{steps} agent steps ({len(traj)} messages), no ending event"


def _key(row: dict[str, Any]) -> tuple[str, int]:
    """Return (task, trial) of a row (raises Malformed when either is unreadable)."""
    task = ident(row.get("task_id"))
    if task is None:
        raise Malformed(f"task_id is {kind_name(row.get('task_id'))}, not a string or integer")
    raw_trial = row.get("trial", 0)
    trial = count(raw_trial)
    if trial is None:
        raise Malformed(f"trial is {kind_name(raw_trial)}, not a non-negative integer")
    return task, trial


def _episode(row: dict[str, Any], model: str, domain: str, run: str,
             may_repeat: bool) -> ArchiveEpisode:
    """Return one ArchiveEpisode built from a tau-bench row."""
    twice = repeated_key(row, may_repeat, KEY_FIELDS)
    task, trial = _key(row)
    ep = ArchiveEpisode(episode_id=f"{run}/{task}/{trial}", task=task, model=model, scaffold="",
                        run=run, trial=trial, meta={"domain": domain, "pairing": {}})
    try:
        if twice is not None:
            raise Malformed(twice)
        _fill(ep, row)
    except Malformed as exc:
        # The row cannot be trusted as a whole: keep the episode, ungraded, and say why.
        ep.grade, ep.events, ep.termination, ep.termination_detail = None, [], None, ""
        # a row naming a key twice has no stored score either: which reward would it be?
        ep.stored_score = None if twice else finite_float(row.get("reward"))
        ep.reason, ep.reason_detail = "malformed_record", str(exc)
        ep.meta["malformed"] = str(exc)
    return ep


def _fill(ep: ArchiveEpisode, row: dict[str, Any]) -> None:
    """Fill events, termination and grade of a row's episode (raises Malformed on bad shape)."""
    traj = _messages(row.get("traj"))
    info = obj(row.get("info"), "info")
    events, stats = _pair_tool_calls(traj)
    termination, detail = _ending(traj, events)
    reward = finite_float(row.get("reward"))
    reward_info = info.get("reward_info")
    source = info.get("source")
    ep.events, ep.stored_score = events, reward
    ep.termination, ep.termination_detail = termination, detail
    ep.meta.update(messages=len(traj), pairing=stats,
                   source=source if isinstance(source, str) else None)
    if reward_info is None:
        ep.reason = "step_cap" if termination == "step_limit" else "grader_never_ran"
        stored = "no reward" if reward is None else f"reward {reward:g}"
        ep.reason_detail = f"reward_info is null; {detail}; stored as {stored}"
        return
    reward_info = obj(reward_info, "info.reward_info")
    # The grader's own result is reward_info.reward; a missing, null or non-finite value is
    # no measurement (never a 0): the row's copy of it stands in.
    graded = finite_float(reward_info.get("reward"))
    if graded is not None and reward is not None and graded != reward:
        # Two records of one grader result that differ: as for a repeated row with another
        # result, which one counts is not identified (tau-bench's own metrics read `reward`,
        # so taking reward_info.reward's 0 for a row's 1 no longer reproduced them).
        ep.reason = "malformed_record"
        ep.reason_detail = ep.meta["malformed"] = (
            f"reward {reward:g} but reward_info.reward {graded:g}: which one counts is not "
            "identified")
        return
    score = graded if graded is not None else reward
    if score is None:
        ep.reason = "unscored"
        ep.reason_detail = "neither reward nor reward_info.reward is a finite number"
        return
    if (why := score_outside(score, "reward")) is not None:
        ep.reason, ep.reason_detail = "score_out_of_range", why
        return
    checks = obj(reward_info.get("info"), "info.reward_info.info")
    detail_out: dict[str, Any] = {k: checks[k] for k in ("r_actions", "r_outputs") if k in checks}
    ep.grade = StoredGrade(score=score, passed=is_success(score), detail=detail_out)


def read_json_file(path: Path) -> Any:
    """Return the parsed JSON of a file (see `read_json_doc`), or raise ArchiveFormatError."""
    return read_json_doc(path).value


def read_json_doc(path: Path) -> JsonDoc:
    """Return the parsed JSON of a file, objects naming a key twice marked, or raise
    ArchiveFormatError saying what was wrong.

    The file is parsed whole, so only a regular file of at most MAX_FILE_BYTES is read.
    """
    try:
        return parse_doc(without_bom(files.read_bytes(path, MAX_FILE_BYTES)).decode("utf-8"))
    except files.FileRefused as exc:
        raise ArchiveFormatError(f"{path.name}: {str(exc).split(': ', 1)[-1]}") from exc
    except OSError as exc:
        raise ArchiveFormatError(f"{path.name}: cannot be read ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise ArchiveFormatError(f"{path.name}: not UTF-8 text ({exc.reason})") from exc
    except ValueError as exc:
        raise ArchiveFormatError(f"{path.name}: does not parse as JSON ({exc})") from exc


def load_taubench(path: Path, data: Any | None = None) -> Archive:
    """Return an Archive read from a tau-bench result file (rows are episodes); `data`: its
    parsed JSON (a JsonDoc, or a bare value whose rows are then searched for marks)."""
    data, may_repeat = unpack(read_json_doc(path) if data is None else data)
    if not looks_like_taubench(data):
        raise ArchiveFormatError(f"{path.name}: not a tau-bench result file "
                                 "(expected a list of rows with task_id, reward, info, traj)")
    model, domain = _model_and_domain(path.stem)
    archive = Archive(source=path.name, format=FORMAT)
    totals: Counter[str] = Counter()
    keys: dict[tuple[str, int], ArchiveEpisode] = {}
    for i, row in enumerate(data):
        if not isinstance(row, dict) or "task_id" not in row:
            archive.problems.append(LoadProblem(path.name, None, f"row {i}: not a tau-bench row"))
            continue
        try:
            ep = _episode(row, model, domain, path.stem, may_repeat)
        except Malformed as exc:
            archive.problems.append(LoadProblem(path.name, None, f"row {i}: skipped: {exc}"))
            continue
        if (kept := keys.get((ep.task, ep.trial))) is not None:
            # One (task, trial) is one episode: a second row for it would be a fifth trial of
            # a 4-trial task in the audit; one with another result leaves it ungraded.
            archive.problems.append(LoadProblem(path.name, None, repeat_text(
                f"row {i}", ep, merge_repeat(kept, ep))))
            continue
        keys[ep.task, ep.trial] = ep
        if "malformed" in ep.meta:
            archive.problems.append(LoadProblem(
                path.name, None, f"row {i} (task {ep.task}): malformed, kept ungraded: "
                                 f"{ep.meta['malformed']}"))
        archive.episodes.append(ep)
        for key, val in ep.meta["pairing"].items():
            totals[key] += val
        totals["rows_with_reused_call_ids"] += int(ep.meta["pairing"].get("reused_call_ids", 0) > 0)
    _fill_grid(archive)
    archive.notes = {
        "model_from_file_name": model, "domain": domain, "step_cap": STEP_CAP,
        "pairing": dict(sorted(totals.items())),
        "grade_checks": dict(Counter(
            "+".join(sorted(e.grade.detail)) or "none" for e in archive.episodes if e.grade)),
        "provenance": "no raw model log separate from the trajectory",
    }
    return archive


def _fill_grid(archive: Archive) -> None:
    """Add a visible placeholder for every (task, trial) of the grid that the file lacks."""
    tasks = sorted({e.task for e in archive.episodes}, key=_task_sort)
    trials = sorted({e.trial for e in archive.episodes})
    have = {(e.task, e.trial) for e in archive.episodes}
    base = archive.episodes[0] if archive.episodes else None
    absent = len(tasks) * len(trials) - len(have)
    if absent > MAX_PLANNED_ABSENT:  # a sparse grid of a small file must not inflate memory
        raise ArchiveFormatError(
            f"{archive.source}: {len(tasks)} tasks x {len(trials)} trial numbers imply {absent} "
            f"missing grid entries; more than {MAX_PLANNED_ABSENT} is refused as implausible")
    for task in tasks:
        for trial in trials:
            if (task, trial) in have or base is None:
                continue
            archive.episodes.append(ArchiveEpisode(
                episode_id=f"{base.run}/{task}/{trial}", task=task, model=base.model,
                run=base.run, trial=trial, reason="not_in_archive",
                reason_detail="task x trial grid entry missing from the file",
            ))


def _task_sort(task: str) -> tuple[int, str]:
    """Sort numeric task ids numerically, others after them."""
    numeric = task.isascii() and task.isdigit() and len(task) <= 18  # int() of 10^4 digits raises
    return (int(task), "") if numeric else (1 << 62, task)
