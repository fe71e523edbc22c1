"""Row generator and totals rows (docs/comtrade.md: seeding, "Totals row")."""

from __future__ import annotations

import pytest

from agentmetrology.envs.comtrade import get_task, ground_truth_ids
from agentmetrology.envs.comtrade.generator import (
    ROW_FIELDS,
    generate_rows,
    generator_seed,
    row_dicts,
    row_tuples,
    seed_string,
    totals_row,
)
from agentmetrology.envs.comtrade.tasks import TASKS, UnknownTaskError


@pytest.mark.parametrize(
    ("task", "seed_int", "row0", "total"),
    [
        ("T1_single_page", 2916913234, (495076, 21661, 2117), 411_860_696),
        ("T2_multi_page", 3557839952, (344836, 44833, 8491), 1_148_781_932),
        ("T9_adaptive_adversary", 4290044636, (719602, 2827, 7176), 36_558_186),
    ],
)
def test_legacy_fingerprints(task: str, seed_int: int, row0: tuple[int, int, int],
                             total: int) -> None:
    assert generator_seed(task, None, "legacy") == seed_int
    rows = generate_rows(task, 0, "legacy")
    assert (rows[0]["tradeValue"], rows[0]["netWeight"], rows[0]["qty"]) == row0
    assert sum(r["tradeValue"] for r in rows) == total


def test_row_shape_and_order() -> None:
    rows = generate_rows("T3_duplicates", 5)
    assert list(rows[0]) == ["year", "reporter", "partner", "flow", "hs", "cmdCode",
                             "tradeValue", "netWeight", "qty", "record_id"]
    assert rows[0]["cmdCode"] == rows[0]["hs"] == "87"
    assert rows[0]["year"] == 2020 and isinstance(rows[0]["reporter"], str)
    assert [r["record_id"] for r in rows[:2]] == ["T3_duplicates-000000", "T3_duplicates-000001"]
    assert len(rows) == 25


def test_ground_truth_changes_with_seed_in_seeded_not_legacy() -> None:
    assert generate_rows("T3_duplicates", 0) != generate_rows("T3_duplicates", 1)
    assert generate_rows("T3_duplicates", 0, "legacy") == generate_rows("T3_duplicates", 1,
                                                                        "legacy")
    assert generator_seed("T1_single_page", 0) != generator_seed("T1_single_page", 1)


def test_ground_truth_ids_match_rows() -> None:
    for task in TASKS:
        ids = {r["record_id"] for r in generate_rows(task, 3)}
        assert ids == ground_truth_ids(task, 3)
        assert len(ids) == TASKS[task].rows


def test_generated_rows_are_fresh_copies() -> None:
    a = generate_rows("T3_duplicates", 0)
    a[0]["qty"] = -1
    assert generate_rows("T3_duplicates", 0)[0]["qty"] != -1


def test_row_dicts_keys_are_row_fields_in_order() -> None:
    tup = row_tuples("T9_adaptive_adversary", 4, "seeded")[7]
    (row,) = row_dicts([tup])
    assert tuple(row) == ROW_FIELDS
    assert row == dict(zip(ROW_FIELDS, tup, strict=True))
    with pytest.raises(ValueError):
        row_dicts([tup[:-1]])


def test_task_table() -> None:
    assert len(TASKS) == 11
    assert get_task("T2_multi_page").total_pages == 5
    with pytest.raises(UnknownTaskError, match="known tasks"):
        get_task("T99")


def test_totals_row_is_the_spec_summary_row() -> None:
    t = TASKS["T7_totals_trap"]
    rows = [{"tradeValue": 10, "netWeight": 2, "qty": 1},
            {"tradeValue": 5, "netWeight": 3},  # a missing field counts 0
            {"qty": "4"}]
    q = t.query
    assert totals_row(t, 7, rows) == {
        "year": q.year, "reporter": q.reporter, "partner": "WLD", "flow": q.flow,
        "hs": "TOTAL", "tradeValue": 15, "netWeight": 5, "qty": 5,
        "record_id": "T7_totals_trap-TOTAL-0007", "isTotal": True, "is_total": True}
    assert "cmdCode" not in totals_row(t, 1, rows)
    assert totals_row(t, 12, [])["record_id"] == "T7_totals_trap-TOTAL-0012"


def test_seeded_is_the_default_profile_and_needs_a_seed() -> None:
    assert generate_rows("T1_single_page", 3) == generate_rows("T1_single_page", 3, "seeded")
    assert generate_rows("T1_single_page", 3) != generate_rows("T1_single_page", 3, "legacy")
    assert generator_seed("T1_single_page", 3) == generator_seed("T1_single_page", 3, "seeded")
    with pytest.raises(ValueError, match=r"^the seeded profile needs an integer seed$"):
        seed_string(TASKS["T1_single_page"], None, "seeded")
    q = TASKS["T1_single_page"].query
    base = f"T1_single_page:{q.reporter}:{q.partner}:{q.flow}:{q.hs}:{q.year}"
    assert seed_string(TASKS["T1_single_page"], 5, "seeded") == f"{base}:5"
    assert seed_string(TASKS["T1_single_page"], 5, "legacy") == base  # legacy ignores the seed
