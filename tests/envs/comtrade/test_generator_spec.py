"""Row generator and totals rows (docs/comtrade.md: seeding, "Totals row")."""

from __future__ import annotations

import pytest

from agentmetrology.envs.comtrade.generator import (
    generate_rows,
    generator_seed,
    seed_string,
    totals_row,
)
from agentmetrology.envs.comtrade.tasks import TASKS


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
