"""The shape judge: the spec's worked checks on T2, every clause, and no exception on bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentmetrology.envs.comtrade.generator import DEDUP_KEY, ROW_FIELDS, generate_rows
from agentmetrology.envs.comtrade.scoring.judge import (
    JUDGE_SCORER,
    QUERY_FIELDS,
    correctness,
    data_quality,
    dedup_points,
    efficiency,
    judge_family,
    judge_reward,
    judge_texts,
    observability,
    query_points,
    request_count,
    robustness,
    shape_judge,
    totals_penalty,
    type_consistency,
    valid_row_ratio,
    value_ranges,
)
from agentmetrology.envs.comtrade.scoring.submission import Submission
from agentmetrology.envs.comtrade.tasks import TASKS, get_task
from agentmetrology.records import STATUSES, digest
from agentmetrology.runtime.rng import rng

T2 = "T2_multi_page"


def metadata(task_id: str = T2, rows: int = 0, **overrides: Any) -> dict[str, Any]:
    """Well-formed L0-style metadata for a task (query with the right types)."""
    task = get_task(task_id)
    meta = {
        "task_id": task_id, "query": task.query.as_dict(), "row_count": rows,
        "schema": list(ROW_FIELDS), "dedup_key": list(DEDUP_KEY),
        "totals_handling": {"enabled": True, "rows_dropped": 0},
        "request_count": 5, "execution_time_seconds": 0.02,
    }
    meta.update(overrides)
    return meta


def harness_log(task_id: str = T2, pages: int = 5) -> str:
    """An L0 run log: task_id, get_task_info, then (step, request, page) per page, complete."""
    lines = [f"task_id={task_id}", "step=1 tool=get_task_info"]
    for k in range(1, pages + 1):
        lines += [f"step={k + 1} tool=fetch_page", f"request={k} page={k} attempt=1", f"page={k}"]
    return "\n".join([*lines, "complete=true"])


def jsonl(rows: list[dict[str, Any]]) -> str:
    return "\n".join(json.dumps(r) for r in rows)


def judge(data: str | None, meta: Any, log: str | None = None, task_id: str = T2) -> Any:
    text = meta if isinstance(meta, str) or meta is None else json.dumps(meta)
    return judge_texts(data, text, harness_log() if log is None else log, task_id)


# ---- the spec's worked checks ------------------------------------------------------------------

def test_harness_log_has_18_lines() -> None:
    assert len(harness_log().split("\n")) == 18


def test_worked_check_empty_data_scores_64_8() -> None:
    # By hand (T2, E = 2345, family "other", baseline 5):
    #   completeness  15 * 5/5                                   = 15
    #   correctness   rows 12*clamp(1 - 2345/2345) = 0, schema 4*min(10/9, 1) = 4,
    #                 query 4*5/5 = 4, dedup 6 (empty file), row_count 0 == n 4   = 18
    #   robustness    18 stripped log lines >= 5                  = 15
    #   efficiency    rc 5 <= b 5 -> 12, time 0.02 <= 45 -> +3 = 15, halved (corr < 21) = 7.5
    #   data quality  valid rows 0 (no lines) + types 0 (no fields) + ranges 5 (no checks) = 5
    #   observability task_id/page/request/complete 6 + "info" 0.67 + end word 2 = 8.67,
    #                 halved (corr < 21)                          = 4.335
    #   total round(64.835, 1) = 64.8
    a = judge("", metadata(rows=0))
    assert a.scorer == JUDGE_SCORER
    assert a.score == 64.8
    assert a.components == pytest.approx({
        "completeness": 15, "correctness": 18, "robustness": 15, "efficiency": 7.5,
        "data_quality": 5, "observability": 4.335})
    assert a.status == "PARTIAL"
    assert "gate: correctness < 21, efficiency and observability halved" in a.reasons


WORKED_FULL = {"completeness": 15, "correctness": 30, "robustness": 15, "efficiency": 15,
               "data_quality": 15, "observability": 8.67}


def test_worked_check_true_rows_score_98_7() -> None:
    # correctness 12 + 4 + 4 + 6 (all unique) + 4 (row_count == n) = 30; data quality: every
    # row carries the 10 schema names, one type per field, year == 2022 and values >= 0 -> 15.
    rows = generate_rows(T2, 0, "legacy")
    a = judge(jsonl(rows), metadata(rows=len(rows)))
    assert a.score == 98.7
    assert a.components == pytest.approx(WORKED_FULL)
    assert judge_reward(a) == pytest.approx(0.987)


def test_worked_check_fabricated_rows_score_98_7_too() -> None:
    # The judge never sees ground truth: invented ids with self-consistent metadata score the
    # same as the truth (this is the finding the ground-truth F1 corrects).
    rows = [dict(r, record_id=f"FAKE-{i}", tradeValue=i)
            for i, r in enumerate(generate_rows(T2, 0, "legacy"))]
    a = judge(jsonl(rows), metadata(rows=len(rows)))
    assert a.score == 98.7
    assert a.components == pytest.approx(WORKED_FULL)


def test_a_perfect_hundred_is_pass() -> None:
    rows = generate_rows(T2, 0, "legacy")
    log = harness_log() + "\nwarn: none\nerror: none"  # info + warn + error: min(2, 2.01) = 2
    a = judge(jsonl(rows), metadata(rows=len(rows)), log)
    assert a.score == 100.0 and a.status == "PASS"
    assert judge_reward(a) == 1.0


# ---- gates and missing / unreadable input -------------------------------------------------------

def test_metadata_not_json_scores_zero() -> None:
    a = judge("", "{not json")
    assert a.score == 0.0 and a.status == "FAIL"
    assert "not valid JSON" in a.reasons[0]
    assert set(a.components.values()) == {0.0}


@pytest.mark.parametrize("meta_text", ["[]", '["task_id"]', "5", '"text"', "null", "true"])
def test_metadata_not_an_object_is_invalid(meta_text: str) -> None:
    a = judge("", meta_text)
    assert a.status == "INVALID" and a.score == 0.0
    assert "not an object" in a.reasons[0]
    assert judge_reward(a) == 0.0


@pytest.mark.parametrize(("missing", "expected"), [
    ({"run_log"}, 10 * 2 / 3), ({"run_log", "data_jsonl"}, 10 / 3),
    ({"run_log", "data_jsonl", "metadata_json"}, 0.0),
])
def test_missing_parts_score_completeness_only(missing: set[str], expected: float) -> None:
    def part(name: str, text: str) -> str | None:
        return None if name in missing else text

    sub = Submission(part("data_jsonl", ""), part("metadata_json", json.dumps(metadata())),
                     part("run_log", "x"))
    a = shape_judge(sub, T2)
    assert a.components["completeness"] == pytest.approx(expected)
    assert a.score == round(expected, 1)
    assert sum(a.components.values()) == pytest.approx(expected)
    assert a.status == ("FAIL" if expected == 0 else "PARTIAL")


def test_no_submission_is_fail() -> None:
    a = shape_judge(None, T2)
    assert a.status == "FAIL" and a.score == 0.0 and a.reasons == ("no submission",)


def test_completeness_gate_zeroes_efficiency() -> None:
    rows = generate_rows(T2, 0, "legacy")
    meta = metadata(rows=len(rows))
    del meta["dedup_key"]  # completeness 12, and the dedup part of correctness is lost
    a = judge(jsonl(rows), meta)
    assert a.components["completeness"] == 12.0
    assert a.components["efficiency"] == 0.0
    assert a.components["correctness"] == 24.0  # >= 21: observability not halved
    assert a.components["observability"] == pytest.approx(8.67)


@pytest.mark.parametrize(("field", "value"), [
    ("execution_time_seconds", "fast"), ("execution_time_seconds", [1]),
    ("execution_time_seconds", True), ("query", ["276"]), ("query", "276/250"),
])
def test_fields_of_odd_type_are_invalid(field: str, value: Any) -> None:
    a = judge("", metadata(**{field: value}))
    assert a.status == "INVALID" and a.score == 0.0
    assert field in a.reasons[0]


@pytest.mark.parametrize(("field", "value", "lost"), [
    ("row_count", "0", 4.0), ("row_count", {"n": 1}, 4.0),  # only the declared-count points
    ("schema", "year,reporter", 4.0), ("schema", 10, 4.0),  # only the schema points
])
def test_fields_that_cannot_raise_just_earn_no_points(field: str, value: Any,
                                                      lost: float) -> None:
    base = judge("", metadata())
    a = judge("", metadata(**{field: value}))
    assert a.status != "INVALID"
    assert base.components["correctness"] - a.components["correctness"] == lost


def test_null_fields_count_as_absent_not_invalid() -> None:
    a = judge("", metadata(execution_time_seconds=None, row_count=None, schema=None, query=None))
    assert a.status == "PARTIAL"


def test_totals_handling_is_only_checked_for_the_totals_family() -> None:
    assert judge("", metadata(totals_handling=["x"])).status == "PARTIAL"  # T2 never reads it
    t7 = "T7_totals_trap"
    bad = judge("", metadata(t7, totals_handling=["x"]), task_id=t7)
    assert bad.status == "INVALID" and "totals_handling" in bad.reasons[0]
    worse = judge("", metadata(t7, totals_handling={"enabled": 1, "rows_dropped": "3"}),
                  task_id=t7)
    assert worse.status == "INVALID" and "rows_dropped" in worse.reasons[0]


def test_unreadable_or_huge_input_is_invalid() -> None:
    assert judge_texts(b"\xff", b"{}", b"", T2).status == "INVALID"
    big = judge_texts(b"x" * (10 * 1024 * 1024), b"{}", b"", T2)
    assert big.status == "INVALID" and big.score == 0.0
    assert "submission too large" in big.reasons[0]
    assert judge_texts("", "{}", "", "T99").status == "INVALID"


def test_invalid_jsonl_lines_are_scored_not_raised() -> None:
    rows = generate_rows("T3_duplicates", 0)
    text = jsonl(rows) + "\nnot json\n[1,2]\n{broken"
    a = judge(text, metadata("T3_duplicates", rows=28), task_id="T3_duplicates")
    assert a.status == "PARTIAL"
    assert a.components["correctness"] < 30  # dedup 6*25/28


def test_assessment_is_canonical_and_bound_to_evidence() -> None:
    sub = Submission("", json.dumps(metadata()), harness_log())
    a = shape_judge(sub, T2)
    assert a.evidence_digest == sub.digest
    assert len(digest(a)) == 64


# ---- correctness clauses ----------------------------------------------------------------------

def test_query_comparison_is_type_sensitive() -> None:
    q = get_task(T2).query
    assert query_points(q.as_dict(), q) == 4.0
    assert query_points(dict(q.as_dict(), year="2022"), q) == pytest.approx(3.2)
    assert query_points(dict(q.as_dict(), year=2022.0), q) == pytest.approx(3.2)
    assert query_points(dict(q.as_dict(), reporter=276, partner=250), q) == pytest.approx(2.4)
    assert query_points({}, q) == 0.0 and query_points(None, q) == 0.0


def test_the_query_fields_are_every_tasks_query() -> None:
    """query_points reads QUERY_FIELDS off the task's query: they are its fields, all five."""
    for task in TASKS.values():
        assert tuple(task.query.as_dict()) == QUERY_FIELDS


def test_dedup_points() -> None:
    key = list(DEDUP_KEY)
    rows = generate_rows("T3_duplicates", 0)[:5]
    assert dedup_points(key, ()) == 6.0  # empty file
    assert dedup_points(key, tuple(rows)) == 6.0
    assert dedup_points(key, tuple(rows + rows)) == 3.0
    assert dedup_points(key, (*rows, "junk")) == pytest.approx(5.0)  # junk counts in total
    assert dedup_points(["year", "hs"], tuple(rows)) == 0.0  # fewer than 3 names
    assert dedup_points("year,hs,flow", tuple(rows)) == 0.0
    assert dedup_points(["year", 1, "hs"], tuple(rows)) == 0.0
    odd = ({"year": [1], "hs": {"a": 1}}, {"year": [1], "hs": {"a": 1}}, {"hs": None})
    assert dedup_points(["year", "hs", "flow"], odd) == pytest.approx(4.0)  # unhashable values


def test_row_count_term_and_declared_count() -> None:
    task = get_task("T3_duplicates")
    rows = tuple(generate_rows(task.task_id, 0))
    meta = metadata(task.task_id, rows=25)
    assert correctness(meta, rows, task) == 30.0
    assert correctness(meta, rows[:20], task) == pytest.approx(12 * 0.8 + 4 + 4 + 6 + 0)
    assert correctness(dict(meta, row_count=25.0), rows, task) == 30.0  # numeric equality
    over = rows * 3  # n = 75 -> row term clamps to 0, dedup 6/3
    assert correctness(dict(meta, row_count=75), over, task) == pytest.approx(4 + 4 + 2 + 4)


def test_schema_points_saturate_at_nine_names() -> None:
    # 4 * min(len(schema)/9, 1): nine names earn all 4 points (a /10 would give 3.6).
    task = get_task("T3_duplicates")
    rows = tuple(generate_rows(task.task_id, 0))
    meta = metadata(task.task_id, rows=25, schema=list(ROW_FIELDS[:9]))
    assert correctness(meta, rows, task) == 30.0
    meta8 = dict(meta, schema=list(ROW_FIELDS[:8]))
    assert correctness(meta8, rows, task) == pytest.approx(26 + 4 * 8 / 9)
    assert correctness(dict(meta, schema=[]), rows, task) == 26.0


@pytest.mark.parametrize(("kept", "corr", "halved"), [
    (14, 14 + 12 * 14 / 25, True),  # 20.72: in [20, 21), still gated
    (13, 14 + 12 * 13 / 25, True),  # 20.24
    (15, 14 + 12 * 15 / 25, False),  # 21.2: above the gate
])
def test_correctness_gate_at_21(kept: int, corr: float, halved: bool) -> None:
    # T3 (E = 25), `kept` true rows, row_count declared wrong (no count points):
    # correctness = 12*kept/25 + schema 4 + query 4 + dedup 6.
    task_id = "T3_duplicates"
    rows = generate_rows(task_id, 0)[:kept]
    a = judge(jsonl(rows), metadata(task_id, rows=99, request_count=3), harness_log(task_id, 3),
              task_id)
    assert a.components["correctness"] == pytest.approx(corr)
    factor = 0.5 if halved else 1.0
    assert a.components["efficiency"] == pytest.approx(15.0 * factor)
    assert a.components["observability"] == pytest.approx(8.67 * factor)
    gate = "gate: correctness < 21, efficiency and observability halved"
    assert (gate in a.reasons) is halved


def test_totals_penalty() -> None:
    assert totals_penalty(None) == 4.0
    assert totals_penalty({"enabled": False, "rows_dropped": 9}) == 4.0
    assert totals_penalty({"enabled": True}) == 2.0
    assert totals_penalty({"enabled": "yes", "rows_dropped": 0}) == 2.0
    assert totals_penalty({"enabled": True, "rows_dropped": 3}) == 0.0
    task = get_task("T7_totals_trap")
    rows = tuple(generate_rows(task.task_id, 0))
    meta = metadata(task.task_id, rows=750, totals_handling={"enabled": False})
    assert correctness(meta, rows, task) == 26.0


# ---- robustness, efficiency, data quality, observability ---------------------------------------

@pytest.mark.parametrize(("log", "expected"), [
    ("retry status=429 attempt=1 wait_s=2 backoff", 15), ("http 429; retrying", 12),
    ("429 exponential retrying", 15), ("retrying", 8), ("backoff", 8), ("429 seen", 0), ("", 0),
])
def test_robustness_429_family(log: str, expected: float) -> None:
    assert robustness(log, "429") == expected


@pytest.mark.parametrize(("log", "expected"), [
    ("retry status=500 attempt=1 max=3", 15), ("500 retrying until limit", 15),
    ("500 retrying", 12), ("retry status=502", 8), ("500 backoff", 0),
])
def test_robustness_500_family(log: str, expected: float) -> None:
    assert robustness(log, "500") == expected


@pytest.mark.parametrize(("log", "expected"), [
    ("a\nb\nc\nd\ne", 15), ("\n\na\nb\nc\n\n", 12), ("a\nb\nc\nd", 12), ("eleven char", 8),
    ("ten chars!", 0), ("   \n  ", 0),
])
def test_robustness_other_families(log: str, expected: float) -> None:
    assert robustness(log, "other") == expected
    assert robustness(log, "totals") == expected


@pytest.mark.parametrize(("task_id", "family"), [
    ("T1_single_page", "other"), ("T2_multi_page", "other"), ("T3_duplicates", "other"),
    ("T4_rate_limit_429", "429"), ("T5_server_error_500", "500"), ("T6_page_drift", "other"),
    ("T7_totals_trap", "totals"), ("T8_mixed_faults", "other"),
    ("T9_adaptive_adversary", "other"), ("T10_constrained_budget", "other"),
    ("T9_clean_ab", "other"),
])
def test_judge_family_follows_the_fault_mode(task_id: str, family: str) -> None:
    # The original picks the robustness branch by the task's fault-injection mode: only mode
    # rate_limit (T4) gets the 429 rule and only server_error (T5) the 500 rule. T8 (mixed,
    # which does return 429s) and T9 (adaptive) get the line-count rule.
    assert judge_family(get_task(task_id)) == family


def test_robustness_family_comes_from_the_task() -> None:
    # Five lines and no retry word: the line-count rule gives 15, the 429 and 500 rules 0.
    quiet = "task_id=t\nrequest=1 page=1\nrequest=2 page=2\npage=2\ncomplete=true"
    # A 429 retry without "backoff"/"exponential": the 429 rule gives 12, line count 15.
    retried = "task_id=t\nrequest=1 page=1\nretry status=429 attempt=1 wait_s=2\npage=1\ncomplete"
    for task_id, want_quiet, want_retried in (
            ("T4_rate_limit_429", 0, 12), ("T5_server_error_500", 0, 8),
            ("T8_mixed_faults", 15, 15), ("T9_adaptive_adversary", 15, 15),
            ("T3_duplicates", 15, 15), ("T7_totals_trap", 15, 15)):
        family = judge_family(get_task(task_id))
        assert robustness(quiet, family) == want_quiet, task_id
        assert robustness(retried, family) == want_retried, task_id


def test_t8_and_t9_robustness_by_line_count_in_the_full_judge() -> None:
    # End to end: a T8 harness log that retried a 429 without saying "backoff" scored 12 under
    # the 429 rule; the original's line-count rule gives 15.
    for task_id, n in (("T8_mixed_faults", 60), ("T9_adaptive_adversary", 75)):
        log = harness_log(task_id, 3).replace(
            "request=2 page=2 attempt=1", "request=2 page=2 attempt=1\nretry status=429")
        meta = metadata(task_id, rows=n)
        rows = generate_rows(task_id, 0, "legacy")
        assert judge(jsonl(rows), meta, log, task_id).components["robustness"] == 15.0


def test_request_count_sources() -> None:
    assert request_count({"request_count": 7}, "request=99") == 7
    assert request_count({"request_count": 0}, "request=3 x request=12 request=4") == 12
    assert request_count({"request_count": True}, "") == 0
    assert request_count({"request_count": "9"}, "request=2") == 2
    assert request_count({}, "request=" + "9" * 6000) == 10**18  # capped, no int() overflow


def test_efficiency_uses_the_declared_task_baseline() -> None:
    assert efficiency({"task_id": T2, "request_count": 5}, "") == 15.0
    assert efficiency({"task_id": T2, "request_count": 7}, "") == pytest.approx(12 * 0.6 + 3)
    assert efficiency({"task_id": T2, "request_count": 10}, "") == 3.0
    # Declaring T1 (baseline 1) for the same 5 requests costs the whole request part.
    assert efficiency({"task_id": "T1_single_page", "request_count": 5}, "") == 3.0
    assert efficiency({"task_id": "mystery", "request_count": 5}, "") == 15.0  # default 5
    assert efficiency({"task_id": ["x"], "request_count": 5}, "") == 15.0
    assert efficiency({"execution_time_seconds": 46}, "") == 12.0
    assert efficiency({"execution_time_seconds": float("nan")}, "") == 12.0
    assert efficiency({}, "request=" + "9" * 500) == 3.0


def test_valid_row_ratio() -> None:
    rows = [{"a": 1, "b": 2}, {"a": 1}, {}]
    assert valid_row_ratio(rows, 0, []) == 0.0
    assert valid_row_ratio(rows, 4, []) == 0.75  # any object when the schema is empty
    assert valid_row_ratio(rows, 4, ["a", "b"]) == 0.5  # at least half of the names
    assert valid_row_ratio(rows, 3, ["a", "b", "c", 7]) == pytest.approx(1 / 3)


def test_type_consistency() -> None:
    assert type_consistency([]) == 0.0
    assert type_consistency([{"a": 1, "b": None}, {"a": 2, "b": "x"}]) == 1.0
    assert type_consistency([{"a": 1}, {"a": 1.5}, {"a": None}]) == 0.0  # int and float differ
    assert type_consistency([{"a": 1, "b": True}, {"a": "1", "b": False}]) == 0.5


def test_value_ranges() -> None:
    assert value_ranges([], 2020) == 1.0
    assert value_ranges([{"partner": "x"}], 2020) == 1.0  # no check applies
    assert value_ranges([{"year": 2020}], 2020) == 1.0  # 1.5 / 1.5
    assert value_ranges([{"year": 2019}], 2020) == 1.0
    assert value_ranges([{"year": 1800}], 2020) == 0.0
    assert value_ranges([{"year": "2020"}], 2020) == 0.0
    assert value_ranges([{"year": 2020, "tradeValue": -1}], 2020) == pytest.approx(1.5 / 2.5)
    assert value_ranges([{"qty": None, "netWgt": 3, "value": None}], 2020) == pytest.approx(2 / 3)
    assert value_ranges([{"netWeight": -5}], 2020) == 1.0  # not a checked name


def test_data_quality_of_the_empty_file_is_five() -> None:
    assert data_quality(metadata(), (), get_task(T2)) == 5.0


def test_observability_reads_log_and_metadata_text() -> None:
    assert observability("", {}, "{}") == 0.0
    meta = {"task_id": "T2", "state": "Complete", "pagination_stats": {}}
    text = json.dumps(meta).lower()
    # "task_id" and "complete" (a lowercased value) from the metadata text; "pagination" does
    # not contain "page"; + 2 for the pagination_stats key.
    assert observability("", meta, text) == pytest.approx(1.5 * 2 + 2)
    assert observability("request=1 page=1 info warn error done", {}, "{}") == pytest.approx(
        1.5 * 2 + 2 + 2)
    assert observability("info only", {}, "{}") == pytest.approx(0.67)


# ---- never raises ----------------------------------------------------------------------------

def test_random_garbage_never_raises() -> None:
    gen = rng(2, "test", "judge", "garbage")
    pieces = ['{"task_id": "T2_multi_page", ', '"schema": ', '"query": ', '"row_count": ',
              '"execution_time_seconds": ', '"totals_handling": ', '"dedup_key": ', "[", "]",
              "{", "}", ",", ":", '"x"', "1", "-2.5", "null", "true", "NaN", "\n", "\ud800",
              "request=77 ", "429", "é", '{"year": 2017}', '"rows_dropped": ']
    for _ in range(400):
        texts = []
        for _part in range(3):
            parts = gen.integers(len(pieces), size=int(gen.integers(0, 25)))
            texts.append("".join(pieces[int(i)] for i in parts))
        for task_id in ("T7_totals_trap", "T4_rate_limit_429"):
            a = judge_texts(texts[0], texts[1], texts[2], task_id)
            assert a.status in STATUSES
            assert a.score is not None and 0.0 <= a.score <= 100.0


@pytest.mark.parametrize("meta", [
    {"task_id": T2, "schema": [[1], {"a": 1}, "year"], "dedup_key": [[1], "a", "b"]},
    {"query": {"year": float("inf")}, "row_count": float("nan"), "request_count": -3},
    {"totals_handling": {"enabled": True, "rows_dropped": None}},
])
def test_odd_but_typed_metadata_is_scored(meta: dict[str, Any]) -> None:
    rows = generate_rows("T7_totals_trap", 0)[:5]
    a = judge(jsonl(rows), meta, task_id="T7_totals_trap")
    assert a.status in ("PARTIAL", "FAIL")
