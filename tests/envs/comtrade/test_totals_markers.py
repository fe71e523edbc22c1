"""A totals row is recognised by any one of its three markers, and a genuine row by none."""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.envs.comtrade.generator import generate_rows, is_totals_row, totals_row
from agentmetrology.envs.comtrade.tasks import get_task

MARKERS: dict[str, Any] = {"isTotal": True, "is_total": True, "hs": "TOTAL"}


def _genuine() -> dict[str, Any]:
    return generate_rows("T1_single_page", 0)[0]


def test_generated_totals_row_carries_all_three_markers() -> None:
    rows = generate_rows("T1_single_page", 0)
    row = totals_row(get_task("T1_single_page"), 1, rows)
    assert {k: row[k] for k in MARKERS} == MARKERS
    assert is_totals_row(row)


@pytest.mark.parametrize("marker", sorted(MARKERS))
def test_single_marker_is_recognised(marker: str) -> None:
    row = _genuine()
    assert not is_totals_row(row)
    row[marker] = MARKERS[marker]
    assert is_totals_row(row)


@pytest.mark.parametrize("marker", sorted(MARKERS))
def test_only_one_marker_left_on_a_totals_row(marker: str) -> None:
    rows = generate_rows("T1_single_page", 0)
    row = totals_row(get_task("T1_single_page"), 1, rows)
    for other in MARKERS.keys() - {marker}:
        if other == "hs":
            row["hs"] = rows[0]["hs"]  # a genuine commodity code
        else:
            del row[other]
    assert is_totals_row(row)


@pytest.mark.parametrize("row", [
    {"isTotal": False, "is_total": False, "hs": "0101"},
    {"hs": "total"},  # the marker is the exact string the service emits
    {},
])
def test_rows_without_a_marker_are_genuine(row: dict[str, Any]) -> None:
    assert not is_totals_row(row)


@pytest.mark.parametrize("value", [None, "TOTAL", ["TOTAL"], 1])
def test_non_dict_is_never_a_totals_row(value: Any) -> None:
    assert not is_totals_row(value)
