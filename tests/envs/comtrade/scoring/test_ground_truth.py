"""Ground-truth F1: exact values on true, fabricated, duplicated and polluted submissions."""

from __future__ import annotations

import json

import pytest

from agentmetrology.envs.comtrade.generator import generate_rows, totals_row
from agentmetrology.envs.comtrade.scoring.ground_truth import (
    GROUND_TRUTH_SCORER,
    GROUND_TRUTH_VERSION,
    ground_truth_f1,
)
from agentmetrology.envs.comtrade.scoring.submission import Submission, make_submission
from agentmetrology.envs.comtrade.tasks import get_task
from agentmetrology.records import STATUSES, digest, rng

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
