"""Ground-truth F1: exact values on true, fabricated, duplicated and polluted submissions.

The ground-truth F1 scorer's whole Assessment on hand-built submissions (docs/scoring.md:
R = |U|/|G|, P = |U|/lines over every non-blank line, F1 = 2RP/(R+P), 0 when U is empty)."""

from __future__ import annotations

import json

import pytest

from agentmetrology.envs.comtrade.generator import generate_rows, is_totals_row, totals_row
from agentmetrology.envs.comtrade.scorers import SCORERS, as_submission
from agentmetrology.envs.comtrade.scoring.ground_truth import (
    GROUND_TRUTH_SCORER,
    GROUND_TRUTH_VERSION,
    LineCounts,
    f1_components,
    ground_truth_f1,
)
from agentmetrology.envs.comtrade.scoring.submission import Submission, make_submission
from agentmetrology.envs.comtrade.tasks import PROFILES, TASKS, get_task
from agentmetrology.records import STATUSES, digest
from agentmetrology.records.assessment import Assessment
from agentmetrology.runtime.rng import rng

T2 = "T2_multi_page"


def jsonl(rows: list[dict[str, object]]) -> str:
    return "\n".join(json.dumps(r) for r in rows) + "\n"


def fabricated(task_id: str) -> list[dict[str, object]]:
    """Well-formed rows with invented record ids (the `fabricator` failure)."""
    return [dict(r, record_id=f"{task_id}-FAKE-{i:06d}")
            for i, r in enumerate(generate_rows(task_id, 0, "legacy"))]


@pytest.mark.parametrize("seed", [None, 0])
def test_true_rows_score_one(seed: int | None) -> None:
    a = ground_truth_f1(jsonl(generate_rows(T2, seed, "legacy")), T2, seed, "legacy")
    assert (a.scorer, a.scorer_version) == (GROUND_TRUTH_SCORER, GROUND_TRUTH_VERSION)
    assert a.status == "PASS" and a.score == 1.0
    assert a.components["recall"] == a.components["precision"] == 1.0
    assert a.components["matched"] == a.components["truth"] == a.components["lines"] == 2345
    assert a.reasons == ()


def test_seeded_true_rows_score_one() -> None:
    a = ground_truth_f1(jsonl(generate_rows("T3_duplicates", 7)), "T3_duplicates", 7)
    assert a.status == "PASS" and a.score == 1.0


def test_fabricated_rows_score_zero() -> None:
    a = ground_truth_f1(jsonl(fabricated(T2)), T2, 0, "legacy")
    assert a.status == "FAIL" and a.score == 0.0
    assert a.components["spurious"] == 2345
    assert a.components["precision"] == a.components["recall"] == 0.0


def test_every_row_twice_halves_precision() -> None:
    rows = generate_rows(T2, 0, "legacy")
    a = ground_truth_f1(jsonl(rows + rows), T2, 0, "legacy")
    assert a.components["recall"] == 1.0
    assert a.components["precision"] == 0.5
    assert a.score == pytest.approx(2 / 3)
    assert a.status == "PARTIAL"
    assert a.components["duplicates"] == 2345
    assert "2345 duplicate lines" in a.reasons


def test_kept_totals_rows_lower_precision() -> None:
    task = get_task("T7_totals_trap")
    rows = generate_rows(task.task_id, 3)
    pages = [rows[i:i + task.page_size] for i in range(0, len(rows), task.page_size)]
    with_totals = [r for p, page in enumerate(pages, 1) for r in [totals_row(task, p, page), *page]]
    a = ground_truth_f1(jsonl(with_totals), task.task_id, 3)
    assert a.components["totals_rows"] == 3
    assert a.components["spurious"] == 0  # totals rows are reported as such, not as spurious
    assert a.components["precision"] == pytest.approx(750 / 753)
    assert a.components["recall"] == 1.0
    assert a.status == "PARTIAL"


def test_missing_rows_lower_recall_only() -> None:
    rows = generate_rows("T3_duplicates", 0)
    a = ground_truth_f1(jsonl(rows[:10]), "T3_duplicates", 0)
    assert a.components["recall"] == pytest.approx(10 / 25)
    assert a.components["precision"] == 1.0
    assert a.score == pytest.approx(2 * 0.4 / 1.4)
    assert "15 of 25 ground-truth records missing" in a.reasons


def test_unparsable_and_idless_lines_count_in_the_denominator() -> None:
    rows = generate_rows("T3_duplicates", 0)
    junk = ["not json", "[1, 2]", '{"record_id": 5}', '{"no_id": "x"}', "{trunc"]
    text = jsonl(rows) + "\n\n   \n" + "\n".join(junk)  # blank lines do not count
    a = ground_truth_f1(text, "T3_duplicates", 0)
    assert a.components["lines"] == 30
    assert a.components["unparsable"] == 5
    assert a.components["precision"] == pytest.approx(25 / 30)


@pytest.mark.parametrize("bad_id", [["an id in a list"], {"id": 1}, 5, None])
def test_a_record_id_of_another_type_in_plain_rows_is_an_unparsable_line(bad_id: object) -> None:
    # Every row with the ten fields (the column-by-column path): a list record id made the
    # scorer raise building the id set, so the whole submission was INVALID (a measurement
    # failure) instead of one line counted as not a record.
    rows = generate_rows("T3_duplicates", 0)
    rows[0] = dict(rows[0], record_id=bad_id)
    a = ground_truth_f1(jsonl(rows), "T3_duplicates", 0)
    assert a.status == "PARTIAL" and a.components["unparsable"] == 1
    assert a.components["lines"] == 25 and a.score == pytest.approx(2 * (24 / 25) ** 2 / (48 / 25))


def test_duplicate_spurious_ids_count_once_as_spurious() -> None:
    rows = generate_rows("T3_duplicates", 0)
    fake = dict(rows[0], record_id="nope")
    a = ground_truth_f1(jsonl([*rows, fake, fake]), "T3_duplicates", 0)
    assert a.components["spurious"] == 1
    assert a.components["duplicates"] == 1
    assert a.components["precision"] == pytest.approx(25 / 27)


def test_legacy_ignores_the_seed() -> None:
    text = jsonl(generate_rows(T2, None, "legacy"))
    assert ground_truth_f1(text, T2, 123, "legacy").score == 1.0


def test_no_submission_is_a_measured_fail() -> None:
    for sub in (None, Submission(None, "{}", "log")):
        a = ground_truth_f1(sub, T2, 0)
        assert a.status == "FAIL" and a.score == 0.0
        assert a.reasons[0].startswith("no submission")
        assert a.components["truth"] == 2345


def test_empty_data_is_fail_with_zero_precision() -> None:
    a = ground_truth_f1("\n \n", T2, 0)
    assert a.status == "FAIL" and a.score == 0.0
    assert a.components["lines"] == 0 and a.components["precision"] == 0.0
    assert a.reasons == ("empty submission: no non-blank data lines",)


@pytest.mark.parametrize("data", [b"\xff\xfe{}", b"x" * (10 * 1024 * 1024),
                                  "x" * (10 * 1024 * 1024)])
def test_unreadable_data_is_invalid_with_a_reason(data: bytes | str) -> None:
    a = ground_truth_f1(data, T2, 0)
    assert a.status == "INVALID"
    assert a.score is None  # no measurement, not a silent zero
    assert a.reasons and a.reasons[0]


def test_ten_megabyte_submission_says_too_large() -> None:
    a = ground_truth_f1(b"{}\n" * (10 * 1024 * 1024 // 3 + 1), T2, 0)
    assert a.status == "INVALID" and "submission too large" in a.reasons[0]


def test_problems_in_other_parts_do_not_affect_ground_truth() -> None:
    sub = make_submission(jsonl(generate_rows("T3_duplicates", 0)).encode(), b"\xff", None)
    assert sub.problems
    assert ground_truth_f1(sub, "T3_duplicates", 0).status == "PASS"


@pytest.mark.parametrize(("task", "seed", "profile", "needle"), [
    ("T99", 0, "seeded", "unknown task"),
    (T2, 0, "fancy", "unknown profile"),
    (T2, None, "seeded", "integer seed"),
    (T2, True, "seeded", "integer seed"),
])
def test_bad_targets_are_invalid(task: str, seed: int | None, profile: str, needle: str) -> None:
    a = ground_truth_f1("", task, seed, profile)
    assert a.status == "INVALID" and needle in a.reasons[0]


def test_assessment_is_bound_to_the_evidence_and_canonical() -> None:
    sub = Submission(jsonl(generate_rows("T3_duplicates", 0)), "{}", "log")
    a = ground_truth_f1(sub, "T3_duplicates", 0)
    assert a.evidence_digest == sub.digest
    assert ground_truth_f1(sub, "T3_duplicates", 0, evidence_digest="abc").evidence_digest == "abc"
    assert len(digest(a)) == 64  # every component is canonical-JSON encodable


def test_random_garbage_never_raises() -> None:
    gen = rng(1, "test", "ground_truth", "garbage")
    pieces = ['{"record_id": "T3_duplicates-000001"}', '{"record_id": ', "\n", "\r\n", "[",
              "]", "{", "}", '"', "\\", "\x00", "\ud800", "NaN", "1e999", "\u2028", "é", " "]
    for _ in range(500):
        parts = gen.integers(len(pieces), size=int(gen.integers(0, 40)))
        text = "".join(pieces[int(i)] for i in parts)
        a = ground_truth_f1(text, "T3_duplicates", 0)
        assert a.status in STATUSES
        if a.status != "INVALID":
            assert a.score is not None and 0.0 <= a.score <= 1.0
        raw = bytes(int(b) for b in gen.integers(256, size=int(gen.integers(0, 64))))
        assert ground_truth_f1(raw, "T3_duplicates", 0).status in STATUSES


def test_guessed_ids_with_invented_values_are_caught_by_f1_exact() -> None:
    import json

    from agentmetrology.envs.comtrade import generate_rows
    from agentmetrology.envs.comtrade.scoring.ground_truth import ground_truth_f1

    rows = generate_rows("T3_duplicates", 0)
    guessed = [{**r, "tradeValue": r["tradeValue"] + 1} for r in rows]
    data = "".join(json.dumps(r) + "\n" for r in guessed)
    a = ground_truth_f1(data, "T3_duplicates", 0)
    assert a.score == 1.0  # the spec's id-only F1 is fooled
    assert a.components["value_mismatches"] == 25 and a.components["f1_exact"] == 0.0
    assert a.status == "PARTIAL"
    other_seed = "".join(json.dumps(r) + "\n" for r in generate_rows("T3_duplicates", 1))
    b = ground_truth_f1(other_seed, "T3_duplicates", 0)
    assert b.score == 1.0 and b.components["f1_exact"] == 0.0
    good = "".join(json.dumps(r) + "\n" for r in rows)
    c = ground_truth_f1(good, "T3_duplicates", 0)
    assert c.status == "PASS" and c.components["f1_exact"] == 1.0
    typed = "".join(json.dumps({**r, "year": str(r["year"])}) + "\n" for r in rows)
    assert ground_truth_f1(typed, "T3_duplicates", 0).components["value_mismatches"] == 25


T = "T1_single_page"


def _jsonl(rows: list[object]) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)


def _zero(truth: int) -> dict[str, float | int]:
    return {"f1": 0.0, "recall": 0.0, "precision": 0.0, "matched": 0, "f1_exact": 0.0,
            "value_mismatches": 0, "truth": truth, "lines": 0, "duplicates": 0,
            "totals_rows": 0, "spurious": 0, "unparsable": 0}


def test_unknown_task_or_profile_is_invalid_with_the_known_names() -> None:
    assert ground_truth_f1("", "nope", 0, evidence_digest="d") == Assessment(
        "ground_truth_f1", "1.1.0", "INVALID", None, {},
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
        "ground_truth_f1", "1.1.0", "FAIL", 0.0, _zero(n), ("no submission",), "")
    sub = make_submission(metadata_json="{}")
    assert ground_truth_f1(sub, T, 0) == Assessment(
        "ground_truth_f1", "1.1.0", "FAIL", 0.0, _zero(n),
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


def test_a_mapping_changed_in_place_is_scored_anew() -> None:
    # The scorers share one parse of the last mapping they read, found by identity: a dict
    # whose data_jsonl was replaced in place got the old text's assessment (F1 1.0 for "").
    gt, judge = SCORERS
    truth = jsonl(generate_rows(T2, 0, "seeded"))
    sub = {"data_jsonl": truth, "metadata_json": "{}", "run_log": ""}
    assert gt.score(sub, T2, 0, "seeded").score == 1.0
    assert as_submission(sub) is as_submission(sub)  # unchanged: the parse is shared
    judged = judge.score(sub, T2, 0, "seeded").score
    sub["data_jsonl"] = ""
    assert gt.score(sub, T2, 0, "seeded").status == "FAIL"
    assert judge.score(sub, T2, 0, "seeded").score != judged
    sub["data_jsonl"] = truth
    assert gt.score(sub, T2, 0, "seeded").score == 1.0
