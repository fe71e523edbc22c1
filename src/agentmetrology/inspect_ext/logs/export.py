"""An evidence store written as Inspect AI `.eval` logs (`agm export STORE --format inspect`).

One log per campaign × target × level × condition, named after them; its samples are the
episodes recorded (sample id TASK/sSEED as the extension names them, epoch = repeat + 1), each
with the conversation its transcript binds (the last request's messages and the response as
returned), every scorer's score under the name the extension gives it (ENV/SCORER), and the
episode's digests in its metadata. An unmeasured episode stays unmeasured: a measurement
failure is a sample error and every scorer unscored; an UNKNOWN or INVALID assessment is
unscored with its status. Nothing is a 0 that was not measured as one. The logs are built with
inspect-ai's own types and writer, so `inspect view` and `inspect log dump` open them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalMetric,
    EvalPlan,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    write_eval_log,
)
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ContentReasoning,
    ContentText,
)
from inspect_ai.scorer import Score
from inspect_ai.tool import ToolCall

from agentmetrology.edges.staged import staged_files
from agentmetrology.envs.registry import get_env
from agentmetrology.inspect_ext.task.scorers import scorer_name
from agentmetrology.inspect_ext.task.tasks import sample_id
from agentmetrology.records.canonical import canonical_json, sha256_hex
from agentmetrology.records.errors import UserError
from agentmetrology.run.export import Export, export_rows
from agentmetrology.run.export_write import export_errors
from agentmetrology.store import EvidenceStore
from agentmetrology.store.blobs import BlobError
from agentmetrology.store.errors import StoreError
from agentmetrology.store.transcripts import resolve

Group = tuple[str, str, str, str]  # campaign, target, level, condition
SCORED = ("PASS", "FAIL", "PARTIAL")


@dataclass(frozen=True, slots=True)
class WrittenLog:
    """One log written: where, which group, how many samples and how many unmeasured."""

    path: Path
    group: Group
    samples: int
    unmeasured: int


def _file_name(group: Group) -> str:
    """Return a log's file name: its group's names, safe on every file system."""
    text = "_".join(group)
    return re.sub(r"[^A-Za-z0-9._=-]+", "-", text).strip("-") + ".eval"


def file_names(found: Iterable[Group]) -> dict[Group, str]:
    """Return each group's log file name, distinct even where two groups' safe names are the
    same (targets `qwen2.5:7b` and `qwen2.5-7b`, or `Rule` and `rule` on a file system that
    ignores case): each of those gets a suffix drawn from its group, so no log replaces
    another; every other log keeps its plain name."""
    plain = {g: _file_name(g) for g in found}
    seen = Counter(n.casefold() for n in plain.values())
    return {g: n if seen[n.casefold()] == 1 else
            f"{n[:-len('.eval')]}-{sha256_hex(canonical_json(list(g)))[:8]}.eval"
            for g, n in plain.items()}


def groups(export: Export) -> dict[Group, list[dict[str, Any]]]:
    """Return the export's rows by campaign, target, level and condition (in row order)."""
    out: dict[Group, list[dict[str, Any]]] = {}
    for row in export.rows:
        key = (str(row["campaign"]), str(row["target"]), str(row["level"]),
               str(row["condition"]))
        out.setdefault(key, []).append(row)
    return out


def _text(value: Any) -> str:
    """Return a message content as text (a list of parts joined, JSON for anything else)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p)
                         for p in value)
    return json.dumps(value, sort_keys=True)


def _arguments(raw: Any) -> tuple[dict[str, Any], str | None]:
    """Return a tool call's arguments as a dict and the parse error when they are not JSON."""
    if isinstance(raw, dict):
        return raw, None
    if not isinstance(raw, str) or not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return {}, f"arguments are not JSON ({exc}): {raw[:200]}"
    return (value, None) if isinstance(value, dict) else ({}, "arguments are not an object")


def _calls(raw: Any) -> list[ToolCall]:
    """Return OpenAI-style tool calls as Inspect tool calls (the arguments parsed)."""
    out = []
    for i, call in enumerate(raw or []):
        fn = call.get("function") or {} if isinstance(call, dict) else {}
        args, error = _arguments(fn.get("arguments"))
        out.append(ToolCall(id=str(call.get("id") or f"call-{i}"),
                            function=str(fn.get("name") or ""), arguments=args,
                            parse_error=error))
    return out


def _assistant(content: Any, calls: Any, reasoning: Any = None) -> ChatMessageAssistant:
    parts: list[Any] = []
    if reasoning:
        parts.append(ContentReasoning(reasoning=_text(reasoning)))
    text = _text(content)
    if text or not parts:
        parts.append(ContentText(text=text))
    body: Any = parts if reasoning else text
    return ChatMessageAssistant(content=body, tool_calls=_calls(calls) or None)


def chat_message(m: dict[str, Any], names: dict[str, str]) -> ChatMessage:
    """Return one stored chat message as an Inspect message (`names`: tool call id -> tool)."""
    role = m.get("role")
    if role == "system":
        return ChatMessageSystem(content=_text(m.get("content")))
    if role == "assistant":
        return _assistant(m.get("content"), m.get("tool_calls"),
                          m.get("reasoning_content") or m.get("reasoning"))
    if role == "tool":
        call_id = str(m.get("tool_call_id") or "")
        return ChatMessageTool(content=_text(m.get("content")), tool_call_id=call_id or None,
                               function=names.get(call_id))
    return ChatMessageUser(content=_text(m.get("content")))


def conversation(transcript: dict[str, Any]) -> list[ChatMessage]:
    """Return an episode's conversation: the last request's messages, then its response."""
    exchanges = list(transcript.get("exchanges") or [])
    if not exchanges:
        return []
    messages = list(transcript.get("messages") or [])
    last = exchanges[-1]
    sent = [messages[i] for i in last.get("messages") or [] if 0 <= i < len(messages)]
    names = {str(c.get("id")): str((c.get("function") or {}).get("name") or "")
             for m in sent for c in m.get("tool_calls") or [] if isinstance(c, dict)}
    out = [chat_message(m, names) for m in sent]
    response = last.get("response")
    if isinstance(response, dict):
        out.append(_assistant(response.get("content"), response.get("tool_calls"),
                              response.get("reasoning_content") or response.get("reasoning")))
    return out


def _score(row: dict[str, Any], name: str, measured: bool) -> Score:
    status = str(row.get(f"{name}.status") or "UNKNOWN")
    meta = {"scorer": name, "scorer_version": row.get(f"{name}.version"), "status": status,
            "assessment_digest": row.get(f"{name}.digest")}
    value = row.get(f"{name}.score")
    if not measured or status not in SCORED or not isinstance(value, int | float):
        why = (str(row["measurement_failure"]) if row.get("measurement_failure")
               else f"measurement failure ({status})")
        return Score.unscored(reason=why, explanation=why, metadata=meta)
    return Score(value=float(value), answer=status, explanation=status, metadata=meta)


def _input(row: dict[str, Any], messages: Sequence[ChatMessage]) -> str:
    first = next((m for m in messages if m.role == "user"), None)
    if first is not None:
        return first.text
    return f"{row['task']} (seed {row['seed']}): no model conversation was recorded"


def _episode_doc(store: EvidenceStore, digest: str) -> dict[str, Any]:
    doc = store.get_json(digest)
    return doc if isinstance(doc, dict) else {}


def sample(store: EvidenceStore, row: dict[str, Any], env: str,
           scorers: Sequence[str]) -> EvalSample:
    """Return one recorded episode as an Inspect sample with its conversation and scores."""
    doc = _episode_doc(store, str(row["episode_digest"]))
    digest = (doc.get("digests") or {}).get("transcript")
    messages = ([] if not isinstance(digest, str)
                else conversation(resolve(store.get_json(digest), store.get_json)))
    for i, m in enumerate(messages):  # Inspect would draw random ids: the same store, same log
        m.id = f"{str(row['episode_digest'])[:16]}-{i}"
    failure = row.get("measurement_failure")
    scores = {scorer_name_of(env, s): _score(row, s, failure is None) for s in scorers
              if row.get(f"{s}.status") is not None}
    meta = {k: row[k] for k in ("campaign", "target", "task", "seed", "condition", "level",
                                "repeat", "environment", "profile", "termination",
                                "termination_detail", "requests", "tool_calls", "cost",
                                "episode_digest", "submission_digest", "binding_digest")}
    return EvalSample(
        id=sample_id(str(row["task"]), int(row["seed"])), epoch=int(row["repeat"]) + 1,
        input=_input(row, messages), target="", messages=messages, scores=scores,
        metadata={"agentmetrology": meta},
        error=None if failure is None else EvalError(message=str(failure), traceback="",
                                                     traceback_ansi=""))


def scorer_name_of(env: str, scorer: str) -> str:
    """Return the Inspect name of a scorer of environment `env` (as the extension names it)."""
    return scorer_name(get_env(env), scorer)


def _ordered_scorers(env: str, present: Iterable[str]) -> list[str]:
    """Return the scorers the rows carry, the environment's grade scorer first."""
    grade = get_env(env).grade_scorer.name
    names = sorted(set(present))
    return ([grade] if grade in names else []) + [n for n in names if n != grade]


def _results(samples: Sequence[EvalSample], env: str, scorers: Sequence[str]) -> EvalResults:
    """Return the log's results: per scorer the measured and unmeasured counts and, when any
    sample was measured, the mean and worst case (no number stands for no measurement)."""
    out = []
    for s in scorers:
        name = scorer_name_of(env, s)
        values = [v for v in (x.scores[name].value for x in samples
                              if x.scores and name in x.scores)
                  if isinstance(v, int | float) and v == v]
        seen = sum(1 for x in samples if x.scores and name in x.scores)
        metrics = {} if not values else {
            "mean": EvalMetric(name="mean", value=sum(values) / len(values)),
            "worst_case": EvalMetric(name="worst_case", value=min(values))}
        out.append(EvalScore(name=name, scorer=s, scored_samples=len(values),
                             unscored_samples=seen - len(values), metrics=metrics))
    return EvalResults(total_samples=len(samples), completed_samples=len(samples),
                       scores=out)


def _created(store: EvidenceStore, campaign: str) -> str:
    """Return when the campaign was registered (so the same store exports the same log)."""
    row = store.ledger.campaign(campaign) or {}
    when = row.get("created_at")
    if isinstance(when, str) and when:
        return when
    return datetime.fromtimestamp(float(when or 0), UTC).isoformat(timespec="seconds")


def _eval_id(group: Group, rows: Sequence[dict[str, Any]]) -> str:
    """Return the log's id: named by its group and episodes (the same store, the same id)."""
    return sha256_hex(canonical_json([list(group), [r["episode_digest"] for r in rows]]))[:22]


def eval_log(store: EvidenceStore, group: Group, rows: Sequence[dict[str, Any]]) -> EvalLog:
    """Return the Inspect log of one group of rows."""
    campaign, target, level, condition = group
    env = str(rows[0]["environment"])
    spec = get_env(env)
    present = [k[:-len(".status")] for r in rows for k in r
               if k.endswith(".status") and r[k] is not None]
    scorers = _ordered_scorers(env, present)
    samples = [sample(store, r, env, scorers) for r in rows]
    profile = rows[0].get("profile")
    ids = sorted({sample_id(str(r["task"]), int(r["seed"])) for r in rows})
    epochs = max(int(r["repeat"]) for r in rows) + 1
    evalspec = EvalSpec(
        created=_created(store, campaign), task=f"agentmetrology/{env}", task_version=spec.version,
        task_args={"level": level, "condition": condition, "profile": profile},
        dataset=EvalDataset(name=env, samples=len(ids), sample_ids=list(ids)),
        model=target, config=EvalConfig(epochs=epochs), run_id=campaign,
        eval_id=_eval_id(group, rows),
        # EvalScorer is not among inspect-ai's public names; pydantic validates the dicts.
        scorers=cast(Any, [{"name": scorer_name_of(env, s), "metrics": [], "metadata": {}}
                           for s in scorers]),
        metadata={"agentmetrology": {"campaign": campaign, "target": target, "level": level,
                                     "condition": condition, "profile": profile,
                                     "environment": env, "exported": "agm export"}})
    return EvalLog(status="success", eval=evalspec, plan=EvalPlan(),
                   results=_results(samples, env, scorers), samples=samples)


def write_inspect_logs(store: EvidenceStore, export: Export, out: Path,
                       force: bool = False) -> list[WrittenLog]:
    """Write one `.eval` log per group of the export into directory `out` (made if missing).

    UserError when a log exists and `force` is not given (nothing is written then).
    """
    found = groups(export)
    planned = {g: out / name for g, name in file_names(found).items()}
    clash = [p for p in planned.values() if p.exists()]
    if clash and not force:
        raise UserError(f"{clash[0]} exists; give --force to replace the logs in {out}")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    # Every log is written beside its name first and all are moved into place at the end: a
    # reader never sees half a log, and an export killed midway leaves no complete-looking
    # subset of the logs; what it wrote is removed.
    with staged_files(planned, lambda p: p.with_name(f".{p.name}.partial")) as partials:
        for g, rows in found.items():
            try:
                log = eval_log(store, g, rows)
            except (StoreError, BlobError, ValueError) as exc:
                raise UserError(f"cannot read an episode of {'/'.join(g)}: {exc}") from exc
            write_eval_log(log, partials[g], format="eval")
            unmeasured = sum(1 for s in log.samples or [] if s.error is not None)
            written.append(WrittenLog(planned[g], g, len(rows), unmeasured))
    return written


def export_inspect_logs(store: Path, names: Sequence[str] | None, out: Path, *,
                        force: bool) -> list[WrittenLog]:
    """Write the evidence store at `store` (only campaigns `names`, or all) as `.eval` logs
    into directory `out`; a store that cannot be read is an ExportError naming it."""
    with export_errors(store), EvidenceStore.open_readonly(store, scrub_env=False) as st:
        return write_inspect_logs(st, export_rows(st, names), out, force=force)
