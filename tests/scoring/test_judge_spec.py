"""The shape judge clause by clause (specs/comtrade.md, "Shape judge") on hand-derived cases:
every dimension of one worked T4 submission, the gates at their boundaries, the totals
penalty, the refusals (INVALID with the reason), and the reward."""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.envs.comtrade.scoring.judge import (
    dimensions,
    judge_reward,
    judge_texts,
    meta_text,
    observability,
    totals_penalty,
    type_problem,
)
from agentmetrology.envs.comtrade.tasks import get_task
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
    ('{"query": "x"}', "metadata query is a JSON string, not a object"),
    ('{"query": [1]}', "metadata query is a JSON array, not a object"),
    ('{"execution_time_seconds": false}',
     "metadata execution_time_seconds is a JSON boolean, not a number")])
def test_refusals_are_invalid_with_the_reason(meta: str, reason: str) -> None:
    a = judge_texts("", meta, "", "T4_rate_limit_429", evidence_digest="e" * 64)
    assert a == Assessment("shape_judge", "1.0.0", "INVALID", 0.0, {}, (reason,), "e" * 64)


def test_a_python_value_of_no_json_type_is_named_by_its_type() -> None:
    assert type_problem({"query": (1, 2)}, T4) == "metadata query is a JSON tuple, not a object"


def test_the_evidence_digest_given_is_the_one_recorded() -> None:
    a = judge_texts("", "{}", "", "T4_rate_limit_429", evidence_digest="f" * 64)
    assert a.evidence_digest == "f" * 64 and a.status != "INVALID"


@pytest.mark.parametrize(("status", "score", "reward"), [
    ("INVALID", 50.0, 0.0), ("PARTIAL", 50.0, 0.5), ("PASS", 150.0, 1.0), ("FAIL", 0.0, 0.0),
    ("UNKNOWN", None, 0.0)])
def test_the_reward(status: Any, score: float | None, reward: float) -> None:
    a = Assessment("shape_judge", "1.0.0", status, score, {}, (), "")
    assert judge_reward(a) == reward
