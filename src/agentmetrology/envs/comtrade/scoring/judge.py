"""The original six-dimension 0-100 ComtradeBench shape judge, kept as an object of study.

It never sees ground truth: it scores how a submission *looks* (declared metadata, row shape,
log vocabulary), which is why fabricated rows with self-consistent metadata score as high as the
true rows. We keep it, reproduced clause by clause in docs/scoring.md ("The shape judge"), so
that its failure modes can be measured next to the ground-truth F1. Where the original raised
on odd input, this one returns INVALID with a reason and score 0; it never raises.

The status is only a label (PASS at 100, FAIL at 0, PARTIAL between, INVALID when unscorable);
the measurement is the total in `score`, and `components` holds the six dimensions, unrounded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Final

# The row-level terms live in judge_rows; re-exported here, where the rubric is read.
from agentmetrology.envs.comtrade.scoring.judge_rows import RowTally
from agentmetrology.envs.comtrade.scoring.judge_rows import dedup_points as dedup_points
from agentmetrology.envs.comtrade.scoring.judge_rows import type_consistency as type_consistency
from agentmetrology.envs.comtrade.scoring.judge_rows import valid_row_ratio as valid_row_ratio
from agentmetrology.envs.comtrade.scoring.judge_rows import value_ranges as value_ranges
from agentmetrology.envs.comtrade.scoring.submission import (
    FILE_NAMES,
    PARTS,
    Scorable,
    make_submission,
    parse_json,
)
from agentmetrology.envs.comtrade.tasks import JUDGE_BASELINES, TASKS, ComtradeTask, Query
from agentmetrology.records.assessment import Assessment, Status

JUDGE_SCORER: Final = "shape_judge"
JUDGE_VERSION: Final = "1.0.0"
# Dimension names and their maxima, in the order they are summed.
DIMENSIONS: Final[tuple[tuple[str, float], ...]] = (
    ("completeness", 15.0), ("correctness", 30.0), ("robustness", 15.0),
    ("efficiency", 15.0), ("data_quality", 15.0), ("observability", 10.0),
)
REQUIRED_KEYS: Final = ("task_id", "query", "row_count", "schema", "dedup_key")
QUERY_FIELDS: Final = ("reporter", "partner", "flow", "hs", "year")
RETRY_WORDS_429: Final = ("retry status", "retrying", "backoff")
STRONG_WORDS_429: Final = ("exponential", "backoff")
RETRY_WORDS_500: Final = ("retry status", "retrying")
STRONG_WORDS_500: Final = ("max", "limit")
OBS_WORDS: Final = ("task_id", "page", "request", "complete")
LEVEL_WORDS: Final = ("info", "warn", "error")
END_WORDS: Final = ("complete", "finish", "done", "success", "fail", "error", "stop")
# The robustness branch follows the task's fault-injection *mode*, as in the original: only a
# `rate_limit` task (T4) gets the 429 rule and only a `server_error` task (T5) the 500 rule; every
# other mode, including `mixed` (T8, which does return 429s) and `adaptive` (T9), gets the
# line-count rule. The totals penalty likewise applies to mode `totals` (T7) only.
MODE_FAMILIES: Final[dict[str, str]] = {
    "rate_limit": "429", "server_error": "500", "totals": "totals",
}
DEFAULT_BASELINE: Final = 5
TIME_LIMIT_S: Final = 45
_REQUEST_RE: Final = re.compile(r"request=(\d+)")
# Request numbers beyond this are all "far over budget"; capping keeps int() away from
# Python's digit limit on a hostile log.
_RC_CAP: Final = 10**18


def _num(v: object) -> bool:
    """Return True for a JSON number (int or float; bool is not a number here)."""
    return type(v) is int or type(v) is float


def _clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


_JSON_TYPES: Final[dict[type, str]] = {dict: "object", list: "array", str: "string"}


def _json_type(v: object) -> str:
    """Return the JSON type name of a parsed value, for reasons."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if _num(v):
        return "number"
    return _JSON_TYPES.get(type(v), type(v).__name__)


# ---- dimensions -------------------------------------------------------------------------------

def judge_family(task: ComtradeTask) -> str:
    """Return the judge's family for a task's mode: '429', '500', 'totals' or 'other'."""
    return MODE_FAMILIES.get(task.family, "other")


def completeness(meta: dict[str, Any]) -> float:
    """Return 15 * (present keys among task_id, query, row_count, schema, dedup_key) / 5."""
    return 15.0 * sum(1 for k in REQUIRED_KEYS if k in meta) / 5


def query_points(declared: object, query: Query) -> float:
    """Return 4 * (query fields equal in value *and* type to the task's) / 5."""
    if not isinstance(declared, dict):
        return 0.0
    hits = 0
    for name in QUERY_FIELDS:  # the task's query fields, read without building its dict
        want, got = getattr(query, name), declared.get(name, None)
        # Type-sensitive: "2022" or 2022.0 for the int year do not count, nor 276 for "276".
        if type(got) is type(want) and got == want:
            hits += 1
    return 4.0 * hits / 5


def totals_penalty(handling: dict[str, Any] | None) -> float:
    """Return 4 without truthy totals_handling.enabled, else 2 if rows_dropped < 1, else 0."""
    handling = handling or {}
    if not handling.get("enabled"):
        return 4.0
    dropped = handling.get("rows_dropped")
    return 2.0 if (0 if dropped is None else dropped) < 1 else 0.0


def _new_tally(meta: dict[str, Any], task: ComtradeTask) -> RowTally:
    """Return an empty tally under the declared dedup key and schema and the task's year."""
    return RowTally(meta.get("dedup_key"), meta.get("schema"), task.query.year)


def _tally(meta: dict[str, Any], rows: RowTally | Sequence[Any], task: ComtradeTask) -> RowTally:
    """Return the lines' tally (given, or taken now from a sequence of parsed lines)."""
    if isinstance(rows, RowTally):
        return rows
    t = _new_tally(meta, task)
    t.add(rows)
    return t


def correctness(meta: dict[str, Any], values: RowTally | Sequence[Any],
                task: ComtradeTask) -> float:
    """Return the correctness dimension (row count, schema, query, dedup, count, totals; 0-30)."""
    t = _tally(meta, values, task)
    n, expected = t.lines, task.rows
    score = 12.0 * _clamp(1 - abs(n - expected) / expected, 0.0, 1.0)
    schema = meta.get("schema")
    if isinstance(schema, list):
        score += 4.0 * min(len(schema) / 9, 1.0)
    score += query_points(meta.get("query"), task.query)
    score += t.dedup_points()
    declared = meta.get("row_count")
    if _num(declared) and declared == n:
        score += 4.0
    if judge_family(task) == "totals":
        score -= totals_penalty(meta.get("totals_handling"))
    return _clamp(score, 0.0, 30.0)


def robustness(log: str, family: str) -> float:
    """Return the robustness dimension from substring tests on the lowercased log (0-15)."""
    if family in ("429", "500"):
        code = family
        retry_words, strong = ((RETRY_WORDS_429, STRONG_WORDS_429) if family == "429"
                               else (RETRY_WORDS_500, STRONG_WORDS_500))
        retried = any(w in log for w in retry_words)
        if code in log and retried and any(w in log for w in strong):
            return 15.0
        if code in log and retried:
            return 12.0
        return 8.0 if retried else 0.0
    stripped = log.strip()
    lines = len(stripped.split("\n")) if stripped else 0
    if lines >= 5:
        return 15.0
    if lines >= 3:
        return 12.0
    return 8.0 if len(stripped) > 10 else 0.0


def request_count(meta: dict[str, Any], log: str) -> int:
    """Return meta.request_count if a positive int, else the largest request=N in the log, or 0."""
    declared = meta.get("request_count")
    if type(declared) is int and declared > 0:
        return declared
    best = 0
    for m in _REQUEST_RE.finditer(log):
        digits = m.group(1).lstrip("0")
        best = max(best, _RC_CAP if len(digits) > 18 else int(digits or "0"))
    return best


def efficiency(meta: dict[str, Any], log: str) -> float:
    """Return the efficiency dimension: requests against the declared task's baseline, time."""
    rc = request_count(meta, log)
    declared_task = meta.get("task_id")
    # The baseline follows the *declared* task id, as in the original (5 when unknown).
    b = (JUDGE_BASELINES.get(declared_task, DEFAULT_BASELINE)
         if isinstance(declared_task, str) else DEFAULT_BASELINE)
    if rc == 0 or rc <= b:
        score = 12.0
    elif rc >= 2 * b:  # min((rc-b)/b, 1) == 1; avoids float overflow for huge counts
        score = 0.0
    else:
        score = 12.0 * (1 - (rc - b) / b)
    seconds = meta.get("execution_time_seconds")
    if (0 if seconds is None else seconds) <= TIME_LIMIT_S:
        score += 3.0
    return score


def data_quality(meta: dict[str, Any], values: RowTally | Sequence[Any],
                 task: ComtradeTask) -> float:
    """Return the data-quality dimension: 5 * (valid rows + type consistency + value ranges)."""
    t = _tally(meta, values, task)
    return (5.0 * t.valid_row_ratio() + 5.0 * t.type_consistency()
            + 5.0 * t.value_ranges())


def observability(log: str, meta: dict[str, Any], meta_text: str) -> float:
    """Return the observability dimension from words in the log and the metadata text (0-10)."""
    score = 1.5 * sum(1 for w in OBS_WORDS if w in log or w in meta_text)
    score += min(2.0, 0.67 * sum(1 for w in LEVEL_WORDS if w in log))
    if (any(w in log for w in END_WORDS)
            or "stop_reason" in meta or "pagination_stats" in meta):
        score += 2.0
    return score


# ---- assembly ---------------------------------------------------------------------------------

def type_problem(meta: object, task: ComtradeTask) -> str | None:
    """Return why metadata cannot be scored (where the original would have raised), or None."""
    if not isinstance(meta, dict):
        return f"metadata.json holds a JSON {_json_type(meta)}, not an object"
    # null counts as absent; any other value must have the type the rubric computes with.
    # row_count is only compared for equality and schema only used "if it is a list": an odd
    # type there cannot raise, so it just earns no points (see correctness and data_quality).
    checks: list[tuple[str, object, str]] = [
        ("query", meta.get("query"), "object"),
        ("execution_time_seconds", meta.get("execution_time_seconds"), "number"),
    ]
    if judge_family(task) == "totals":  # only the totals family ever reads totals_handling
        handling = meta.get("totals_handling")
        checks.append(("totals_handling", handling, "object"))
        if isinstance(handling, dict):
            checks.append(("totals_handling.rows_dropped", handling.get("rows_dropped"),
                           "number"))
    for name, value, want in checks:
        if value is not None and _json_type(value) != want:
            article = "an" if want[0] in "aeiou" else "a"
            return f"metadata {name} is a JSON {_json_type(value)}, not {article} {want}"
    return None


def meta_text(meta: dict[str, Any], raw: str) -> str:
    """Return the lowercased text of the metadata's keys and values."""
    try:
        return json.dumps(meta, ensure_ascii=False).lower()
    except (RecursionError, ValueError):  # nesting deeper than the encoder allows
        return raw.lower()


def dimensions(meta: dict[str, Any], values: RowTally | Sequence[Any], log: str,
               raw_meta: str, task: ComtradeTask) -> tuple[dict[str, float], list[str]]:
    """Return the six dimensions after the gates, and reasons naming the gates applied."""
    values = _tally(meta, values, task)
    dims = {
        "completeness": completeness(meta),
        "correctness": correctness(meta, values, task),
        "robustness": robustness(log, judge_family(task)),
        "efficiency": efficiency(meta, log),
        "data_quality": data_quality(meta, values, task),
        # The metadata text is read only for a word the log lacks (observability's `or`):
        # a log with all of them (every harness and scripted agent's) never needs the dump.
        "observability": observability(log, meta, "" if all(w in log for w in OBS_WORDS)
                                       else meta_text(meta, raw_meta)),
    }
    reasons = []
    if dims["completeness"] < 15:
        dims["efficiency"] = 0.0
        reasons.append("gate: completeness < 15, efficiency set to 0")
    if dims["correctness"] < 21:
        dims["efficiency"] *= 0.5
        dims["observability"] *= 0.5
        reasons.append("gate: correctness < 21, efficiency and observability halved")
    return dims, reasons


def _zeros() -> dict[str, float]:
    return {name: 0.0 for name, _ in DIMENSIONS}


def _assessment(dims: dict[str, float], reasons: list[str], ev: str) -> Assessment:
    """Return the Assessment of a breakdown: total = round(sum, 1), status a label of it."""
    total = round(sum(dims[name] for name, _ in DIMENSIONS), 1)
    status: Status = "PASS" if total >= 100.0 else ("FAIL" if total <= 0.0 else "PARTIAL")
    return Assessment(JUDGE_SCORER, JUDGE_VERSION, status, total, dims, tuple(reasons), ev)


def _invalid(reasons: list[str], ev: str) -> Assessment:
    return Assessment(JUDGE_SCORER, JUDGE_VERSION, "INVALID", 0.0, {}, tuple(reasons), ev)


def shape_judge(submission: Scorable | None, task_id: str, *,
                evidence_digest: str | None = None) -> Assessment:
    """Return the shape judge's Assessment (score = total 0-100) of a submission for a task."""
    ev = evidence_digest
    if ev is None:
        ev = submission.digest if submission is not None else ""
    task = TASKS.get(task_id)
    if task is None:
        return _invalid([f"unknown task {task_id!r}; known tasks: {', '.join(TASKS)}"], ev)
    if submission is None:
        return _assessment(_zeros(), ["no submission"], ev)
    if problems := submission.problems_for(*PARTS):
        return _invalid(problems, ev)
    raw_meta = submission.metadata_json
    meta: Any = None
    if raw_meta is not None:
        meta, err = parse_json(raw_meta)
        if err is not None:
            return _assessment(_zeros(), [f"metadata.json is {err}: total 0"], ev)
    missing = [FILE_NAMES[p] for p in PARTS if not submission.present(p)]
    if missing:
        dims = _zeros()
        dims["completeness"] = 10.0 * (3 - len(missing)) / 3
        return _assessment(dims, [f"missing: {', '.join(missing)}",
                                  "only completeness scored (10 * present/3)"], ev)
    if (problem := type_problem(meta, task)) is not None:
        return _invalid([problem], ev)
    rows = _new_tally(meta, task)
    for batch in submission.data_batches():  # one batch in memory, many for a streamed file
        rows.add(batch)
    log = (submission.run_log or "").lower()
    dims, reasons = dimensions(meta, rows, log, raw_meta or "", task)
    return _assessment(dims, reasons, ev)


def judge_texts(data_jsonl: str | bytes | None, metadata_json: str | bytes | None,
                run_log: str | bytes | None, task_id: str, *,
                evidence_digest: str | None = None) -> Assessment:
    """Return the shape judge's Assessment of the three texts (str, UTF-8 bytes or None)."""
    return shape_judge(make_submission(data_jsonl, metadata_json, run_log), task_id,
                       evidence_digest=evidence_digest)


def judge_reward(assessment: Assessment) -> float:
    """Return the judge's RL reward min(total/100, 1) (0 for an INVALID or missing score)."""
    if assessment.status == "INVALID" or not assessment.score:
        return 0.0
    return min(assessment.score / 100.0, 1.0)
