"""The ground-truth F1 scorer's whole Assessment on hand-built submissions (docs/scoring.md:
R = |U|/|G|, P = |U|/lines over every non-blank line, F1 = 2RP/(R+P), 0 when U is empty)."""

from __future__ import annotations

import json

import pytest

from agentmetrology.envs.comtrade.generator import generate_rows, is_totals_row, totals_row
from agentmetrology.envs.comtrade.scoring.ground_truth import (
    LineCounts,
    f1_components,
    ground_truth_f1,
)
from agentmetrology.envs.comtrade.scoring.submission import make_submission
from agentmetrology.envs.comtrade.tasks import PROFILES, TASKS
from agentmetrology.records.assessment import Assessment

T = "T1_single_page"


def _jsonl(rows: list[object]) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)


def _zero(truth: int) -> dict[str, float | int]:
    return {"f1": 0.0, "recall": 0.0, "precision": 0.0, "matched": 0, "f1_exact": 0.0,
            "value_mismatches": 0, "truth": truth, "lines": 0, "duplicates": 0,
            "totals_rows": 0, "spurious": 0, "unparsable": 0}


def test_unknown_task_or_profile_is_invalid_with_the_known_names() -> None:
    assert ground_truth_f1("", "nope", 0, evidence_digest="d") == Assessment(
        "ground_truth_f1", "1.0.0", "INVALID", None, {},
        (f"unknown task 'nope'; known tasks: {', '.join(TASKS)}",), "d")
    assert ground_truth_f1("", T, 0, "odd", evidence_digest="d").reasons == (
        f"unknown profile 'odd'; known profiles: {', '.join(PROFILES)}",)
    bad = make_submission(data_jsonl=12)  # not text: a problem of the submission, INVALID
    a = ground_truth_f1(bad, T, 0)
    assert (a.status, a.score, a.components) == ("INVALID", None, {})
    assert a.evidence_digest == bad.digest and a.reasons


def test_no_submission_is_a_measured_zero_not_invalid() -> None:
    n = TASKS[T].rows
    assert ground_truth_f1(None, T, 0) == Assessment(
        "ground_truth_f1", "1.0.0", "FAIL", 0.0, _zero(n), ("no submission",), "")
    sub = make_submission(metadata_json="{}")
    assert ground_truth_f1(sub, T, 0) == Assessment(
        "ground_truth_f1", "1.0.0", "FAIL", 0.0, _zero(n),
        ("no submission: data.jsonl is missing",), sub.digest)


def test_values_are_checked_against_the_seeds_rows_ids_are_not() -> None:
    rows = generate_rows(T, 3)
    a = ground_truth_f1(_jsonl(rows), T, 3, evidence_digest="e")
    assert (a.status, a.score, a.reasons, a.evidence_digest) == ("PASS", 1.0, (), "e")
    other = ground_truth_f1(_jsonl(rows), T, 4)  # seed 4's ids are the same, values are not
    assert (other.status, other.score, other.components["f1_exact"]) == ("PARTIAL", 1.0, 0.0)
    assert other.components["value_mismatches"] == len(rows)
    legacy = _jsonl(generate_rows(T, None, "legacy"))
    assert ground_truth_f1(legacy, T, 3, "legacy").status == "PASS"
    assert ground_truth_f1(legacy, T, 99, "legacy").status == "PASS"  # legacy ignores the seed


def test_every_shortfall_has_its_reason_and_count() -> None:
    rows = generate_rows(T, 0)
    n = len(rows)
    broken = dict(rows[2])
    del broken["qty"]  # a matched id with a field missing is a value mismatch
    lines = [*rows[:2], broken, rows[0], totals_row(TASKS[T], 1, rows[:3]),
             {"record_id": "invented-1"}, "not json", {"record_id": 7}]
    a = ground_truth_f1(_jsonl(lines), T, 0)
    c = a.components
    assert (c["lines"], c["matched"], c["duplicates"], c["totals_rows"], c["spurious"],
            c["unparsable"], c["value_mismatches"]) == (8, 3, 1, 1, 1, 2, 1)
    assert a.reasons == (
        f"{n - 3} of {n} ground-truth records missing", "1 duplicate lines",
        "1 totals rows kept", "1 ids not in the ground truth",
        "1 matched ids whose row values differ from the ground truth (see f1_exact)",
        "2 lines that are not a JSON object with a string record_id")
    r, p = 3 / n, 3 / 8
    assert a.score == pytest.approx(2 * r * p / (r + p), rel=1e-12) and a.status == "PARTIAL"


def test_f1_components_formulas_and_empty_conventions() -> None:
    c = f1_components(LineCounts(10, 8, 0, 0, 2, 0, mismatched=3), 16)
    r, p, rx, px = 8 / 16, 8 / 10, 5 / 16, 5 / 10
    assert (c["recall"], c["precision"]) == (r, p)
    assert c["f1"] == pytest.approx(2 * r * p / (r + p), rel=1e-12)
    assert c["f1_exact"] == pytest.approx(2 * rx * px / (rx + px), rel=1e-12)
    empty = f1_components(LineCounts(0, 0, 0, 0, 0, 0), 0)  # no truth and no lines: all 0
    assert (empty["recall"], empty["precision"], empty["f1"], empty["f1_exact"]) == (0, 0, 0, 0)


def test_each_totals_flag_alone_marks_a_totals_row() -> None:
    # LineTally inlines generator.is_totals_row: each of isTotal, is_total, hs == "TOTAL" on its
    # own makes a totals row; falsy flags and a lower-case "total" do not.
    row = generate_rows(T, 0)[0]
    marked = [{"record_id": "t-1", "isTotal": True}, {"record_id": "t-2", "is_total": 1},
              {"record_id": "t-3", "hs": "TOTAL"}]
    plain = [{"record_id": "p-1", "isTotal": 0, "is_total": "", "hs": "total"},
             {"record_id": "p-2", "isTotal": None}]
    lines = [row, *marked, *plain]
    assert [is_totals_row(x) for x in lines] == [False, True, True, True, False, False]
    c = ground_truth_f1(_jsonl(lines), T, 0).components
    # totals rows are counted, and ids outside G only on totals rows are not spurious
    assert (c["lines"], c["totals_rows"], c["spurious"], c["duplicates"]) == (6, 3, 2, 0)
    lower = ground_truth_f1(_jsonl([{"record_id": "p-3", "hs": "total"}]), T, 0).components
    assert (lower["totals_rows"], lower["spurious"]) == (0, 1)  # "TOTAL" is case-sensitive


def test_an_id_seen_first_on_a_totals_row_is_spurious_once() -> None:
    # t-1 on a totals row, then twice on an ordinary row: one spurious id, two duplicate lines
    lines = [{"record_id": "t-1", "isTotal": True}, {"record_id": "t-1"}, {"record_id": "t-1"}]
    c = ground_truth_f1(_jsonl(lines), T, 0).components
    assert (c["lines"], c["totals_rows"], c["spurious"], c["duplicates"]) == (3, 1, 1, 2)
