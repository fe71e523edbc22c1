"""The shape judge clause by clause (docs/scoring.md, "The shape judge") on hand-derived cases:
every dimension of one worked T4 submission, the gates at their boundaries, the totals
penalty, the refusals (INVALID with the reason), and the reward."""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.envs.comtrade.scoring.judge import (
    correctness,
    dimensions,
    efficiency,
    judge_reward,
    judge_texts,
    meta_text,
    observability,
    request_count,
    shape_judge,
    totals_penalty,
    type_problem,
)
from agentmetrology.envs.comtrade.tasks import TASKS, get_task
from agentmetrology.records.assessment import Assessment

T4 = get_task("T4_rate_limit_429")  # 30 rows, mode rate_limit (the 429 rule), year 2019
SCHEMA = ["a", "b", "c", "year", "value", "f6", "f7", "f8", "f9"]
LOG = "got 429, retrying with exponential backoff"


def _meta(**changes: Any) -> dict[str, Any]:
    meta = {"task_id": "T4_rate_limit_429", "query": {}, "schema": SCHEMA, "row_count": 30,
            "dedup_key": ["a", "b", "c"], "stop_reason": "done"}
    meta.update(changes)
    return {k: v for k, v in meta.items() if v is not None}


ROWS = [{"a": i % 5, "b": 0, "c": 0, "year": 2019, "value": 1} for i in range(30)]


def test_every_dimension_of_a_worked_submission() -> None:
    # completeness: 5 of 5 keys -> 15. correctness: 30 = E lines -> 12; 9 schema names -> 4;
    # query {} -> 0; 5 unique keys of 30 -> 6 * 5/30 = 1; row_count 30 = n -> 4: 21, exactly
    # the gate, which applies below 21 only. robustness: "429", "retrying", "exponential" -> 15.
    # efficiency: no request count -> 12, no time -> +3. data quality: every row has 5 >= 4.5
    # schema names, one type per field, year 2019 in range and the task's, value >= 0 -> 15.
    # observability: "task_id" (a metadata key) 1.5, no level word, stop_reason +2 -> 3.5.
    meta = _meta()
    dims, reasons = dimensions(meta, ROWS, LOG, "{}", T4)
    assert dims == {"completeness": 15.0, "correctness": 21.0, "robustness": 15.0,
                    "efficiency": 15.0, "data_quality": 15.0, "observability": 3.5}
    assert reasons == []


def test_the_correctness_gate_below_21() -> None:
    dims, reasons = dimensions(_meta(row_count=29), ROWS, LOG, "{}", T4)  # 21 - 4 = 17
    assert dims["correctness"] == 17.0
    assert (dims["efficiency"], dims["observability"]) == (7.5, 1.75)
    assert reasons == ["gate: correctness < 21, efficiency and observability halved"]


def test_the_completeness_gate_below_15() -> None:
    dims, reasons = dimensions(_meta(query=None), ROWS, LOG, "{}", T4)  # 4 of 5 keys: 12
    assert (dims["completeness"], dims["efficiency"]) == (12.0, 0.0)
    assert reasons == ["gate: completeness < 15, efficiency set to 0"]


@pytest.mark.parametrize(("handling", "penalty"), [
    (None, 4.0), ({}, 4.0), ({"enabled": False, "rows_dropped": 9}, 4.0),
    ({"enabled": True}, 2.0), ({"enabled": True, "rows_dropped": 0}, 2.0),
    ({"enabled": True, "rows_dropped": 0.5}, 2.0), ({"enabled": True, "rows_dropped": 1}, 0.0),
    ({"enabled": 1, "rows_dropped": 1.5}, 0.0)])
def test_the_totals_penalty(handling: dict[str, Any] | None, penalty: float) -> None:
    assert totals_penalty(handling) == penalty


def test_observability_words() -> None:
    assert observability("", {"stop_reason": None}, "") == 2.0
    assert observability("", {"pagination_stats": {}}, "") == 2.0
    assert observability("", {}, "") == 0.0
    assert observability("info warn error", {}, "") == pytest.approx(2.0 + 2.0)  # min(2, 2.01)
    assert observability("info", {}, "page request") == pytest.approx(3.0 + 0.67)


def test_meta_text_is_the_lowercased_json_text() -> None:
    assert meta_text({"Task_ID": "Ünïcode"}, "ignored") == '{"task_id": "ünïcode"}'
    deep: Any = {}
    for _ in range(100_000):  # deeper than the encoder allows: the raw text, lowercased
        deep = {"x": deep}
    assert meta_text(deep, '{"PAGE": 1}') == '{"page": 1}'
    dims, _ = dimensions(deep, [], "", '{"PAGE": 1}', T4)  # the judge reads the raw text too
    assert dims["observability"] == 1.5 * 0.5  # "page"; halved by the correctness gate


@pytest.mark.parametrize(("meta", "reason"), [
    ("null", "metadata.json holds a JSON null, not an object"),
    ("true", "metadata.json holds a JSON boolean, not an object"),
    ("[1]", "metadata.json holds a JSON array, not an object"),
    ('"x"', "metadata.json holds a JSON string, not an object"),
    ("1.5", "metadata.json holds a JSON number, not an object"),
    ('{"query": "x"}', "metadata query is a JSON string, not an object"),
    ('{"query": [1]}', "metadata query is a JSON array, not an object"),
    ('{"execution_time_seconds": false}',
     "metadata execution_time_seconds is a JSON boolean, not a number")])
def test_refusals_are_invalid_with_the_reason(meta: str, reason: str) -> None:
    a = judge_texts("", meta, "", "T4_rate_limit_429", evidence_digest="e" * 64)
    assert a == Assessment("shape_judge", "1.0.0", "INVALID", 0.0, {}, (reason,), "e" * 64)


def test_a_python_value_of_no_json_type_is_named_by_its_type() -> None:
    assert type_problem({"query": (1, 2)}, T4) == "metadata query is a JSON tuple, not an object"


def test_the_evidence_digest_given_is_the_one_recorded() -> None:
    a = judge_texts("", "{}", "", "T4_rate_limit_429", evidence_digest="f" * 64)
    assert a.evidence_digest == "f" * 64 and a.status != "INVALID"


@pytest.mark.parametrize(("status", "score", "reward"), [
    ("INVALID", 50.0, 0.0), ("PARTIAL", 50.0, 0.5), ("PASS", 150.0, 1.0), ("FAIL", 0.0, 0.0),
    ("UNKNOWN", None, 0.0)])
def test_the_reward(status: Any, score: float | None, reward: float) -> None:
    a = Assessment("shape_judge", "1.0.0", status, score, {}, (), "")
    assert judge_reward(a) == reward


def test_a_total_just_above_zero_is_partial_not_fail() -> None:
    # T2 (E = 2,345): 100 lines -> 12 * 100/2345 = 0.5117; no schema, query, key or count.
    # Data quality: 2 objects of 100 lines, no schema -> 0.02 valid; year has str and int -> 0
    # consistency; neither year passes -> 0 ranges: 5 * 0.02 = 0.1. Everything else 0.
    data = "\n".join(['{"year": "x"}', '{"year": 1}'] + ["[1]"] * 98)
    a = judge_texts(data, "{}", "", "T2_multi_page")
    assert (a.scorer, a.scorer_version, a.status, a.score) == ("shape_judge", "1.0.0",
                                                                "PARTIAL", 0.6)
    assert a.components == pytest.approx({
        "completeness": 0.0, "correctness": 12 * 100 / 2345, "robustness": 0.0,
        "efficiency": 0.0, "data_quality": 0.1, "observability": 0.0})
    assert a.reasons == ("gate: completeness < 15, efficiency set to 0",
                         "gate: correctness < 21, efficiency and observability halved")


def test_the_totals_family_reads_totals_handling() -> None:
    t7 = get_task("T7_totals_trap")  # 750 rows, mode totals
    meta = {"schema": SCHEMA, "totals_handling": {"enabled": True, "rows_dropped": 3}}
    rows = [{"a": 1}] * 750
    # 12 (n = E) + 4 (9 schema names) - 0 (totals dropped) = 16; without handling: 12
    assert correctness(meta, rows, t7) == 16.0
    assert correctness({"schema": SCHEMA}, rows, t7) == 12.0
    assert correctness({"totals_handling": {"enabled": True}}, [], t7) == 0.0  # 0 - 2, clamped
    assert type_problem({"totals_handling": []}, t7) == (
        "metadata totals_handling is a JSON array, not an object")
    assert type_problem({"totals_handling": {"rows_dropped": "3"}}, t7) == (
        "metadata totals_handling.rows_dropped is a JSON string, not a number")
    assert type_problem({"totals_handling": []}, T4) is None  # never read outside the family


@pytest.mark.parametrize(("meta", "log", "expected"), [
    ({"request_count": 1, "task_id": "T3_duplicates"}, "", 15.0),  # rc 1 <= b 3
    ({"request_count": 8, "task_id": "T3_duplicates"}, "", 3.0),  # rc 8 >= 2b: 0, + 3
    ({"request_count": 4, "task_id": "T3_duplicates"}, "", 8.0 + 3.0),  # 12 * (1 - 1/3)
    ({"task_id": "T3_duplicates", "execution_time_seconds": 45}, "", 15.0),  # <= 45 s
    ({"task_id": "T3_duplicates", "execution_time_seconds": 45.5}, "", 12.0),
    ({}, "request=7 request=10", 12.0 * (1 - 5 / 5) + 3.0),  # the largest; baseline 5
    ({}, "request=0000000000000000000004", 15.0),  # leading zeros are not digits
    ({"request_count": 1}, "request=9", 15.0),  # a declared positive count wins
    ({"request_count": 0}, "request=9", 12.0 * (1 - 4 / 5) + 3.0)])  # 0 is not positive
def test_efficiency(meta: dict[str, Any], log: str, expected: float) -> None:
    assert efficiency(meta, log) == pytest.approx(expected)


@pytest.mark.parametrize(("log", "rc"), [
    ("request=10", 10), ("request=000", 0), ("request=007", 7),
    ("request=999999999999999999", 999_999_999_999_999_999),  # 18 digits: read as is
    ("request=1000000000000000001", 10**18),  # 19 digits: capped
    ("request=" + "0" * 30 + "12", 12)])
def test_request_count_from_the_log(log: str, rc: int) -> None:
    assert request_count({}, log) == rc


def test_every_path_records_the_evidence_digest_given() -> None:
    ev = "e" * 64
    cases = [(judge_texts("", "{}", "", "T99", evidence_digest=ev), "INVALID"),
             (shape_judge(None, "T1_single_page", evidence_digest=ev), "FAIL"),
             (judge_texts(b"\xff", "{}", "", "T1_single_page", evidence_digest=ev), "INVALID"),
             (judge_texts("", "{", "", "T1_single_page", evidence_digest=ev), "FAIL"),
             (judge_texts("", None, "", "T1_single_page", evidence_digest=ev), "PARTIAL")]
    assert [(a.status, a.evidence_digest) for a, _ in cases] == [(s, ev) for _, s in cases]
    assert shape_judge(None, "T1_single_page").evidence_digest == ""


def test_the_reasons_of_the_early_exits() -> None:
    unknown = judge_texts("", "{}", "", "T99")
    assert unknown.reasons == (f"unknown task 'T99'; known tasks: {', '.join(TASKS)}",)
    assert shape_judge(None, "T1_single_page").reasons == ("no submission",)
    missing = judge_texts("", None, None, "T1_single_page")
    assert missing.reasons == ("missing: metadata.json, run.log",
                               "only completeness scored (10 * present/3)")
    assert missing.components["completeness"] == pytest.approx(10 / 3)
