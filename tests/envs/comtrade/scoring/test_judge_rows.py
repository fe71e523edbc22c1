"""The shape judge's row terms (docs/scoring.md, "Data quality" and the dedup part of
"Correctness") on hand-counted lines, including the batch-by-batch tally of a streamed file."""

from __future__ import annotations

import pytest

from agentmetrology.envs.comtrade.scoring import columns
from agentmetrology.envs.comtrade.scoring.judge_rows import (
    RowTally,
    dedup_points,
    tally,
    type_consistency,
    valid_row_ratio,
    value_ranges,
)

KEY = ["year", "reporter", "partner"]


def test_object_and_array_key_values_compare_by_content() -> None:
    rows = ({"year": {"a": 1, "b": 2}, "reporter": [1, 2], "partner": "x"},
            {"year": {"b": 2, "a": 1}, "reporter": [1, 2], "partner": "x"},  # same, reordered
            {"year": {"a": 1, "b": 3}, "reporter": [1, 2], "partner": "x"},
            {"year": {"a": 1, "b": 2}, "reporter": [2, 1], "partner": "x"})
    assert dedup_points(KEY, rows) == pytest.approx(6.0 * 3 / 4)
    assert len(tally(rows, KEY).keys) == 3


def test_key_sharing_past_fifty_thousand_keys_keeps_nulls_apart() -> None:
    t = RowTally(KEY, [], 0)
    t.add([{"year": i, "reporter": 0, "partner": 0} for i in range(50_000)])
    t.add([{"year": 7, "reporter": 1, "partner": 1}, {"year": None, "reporter": 1, "partner": 1},
           {"reporter": 1, "partner": 1}, {"year": 7, "reporter": 1, "partner": 1}])
    # (7,1,1) twice, (None,1,1) twice (a missing field counts as null): 50,002 distinct keys
    assert len(t.keys) == 50_002 and t.lines == 50_004
    assert t.dedup_points() == pytest.approx(6.0 * 50_002 / 50_004)


def test_half_the_schema_names_make_a_valid_row() -> None:
    schema = ["a", "b", "c", "d", "e", "f"]
    assert valid_row_ratio([{"a": 1, "b": 1}], 1, schema) == 0.0  # 2 of 6 < 3
    assert valid_row_ratio([{"a": 1, "b": 1, "c": 1}], 1, schema) == 1.0  # 3 of 6
    assert valid_row_ratio([{"a": 1, "b": 1, "c": 1}, {"a": 1}], 4, schema) == 0.25
    odd = ["a", "b", "c", 7, "e"]  # half of 5 is 2.5: 3 names needed; a non-name counts in
    assert valid_row_ratio([{"a": 1, "b": 1}], 1, odd) == 0.0  # the length only
    assert valid_row_ratio([{"a": 1, "b": 1, "e": 1}], 1, odd) == 1.0


def test_objects_are_counted_over_every_batch() -> None:
    t = RowTally(None, [], 0)
    t.add([{"a": 1}, "not an object"])
    t.add([{"a": 2}, [1]])
    assert (t.lines, t.objects) == (4, 2) and t.valid_row_ratio() == 0.5


@pytest.mark.parametrize(("years", "expected"), [
    ([1899, 1900, 2100, 2101], 0.5),  # the bounds are inclusive
    ([2020.5], 1.0),  # a float year is numeric
    (["2020"], 0.0),  # a string is not
    ([None, True], 0.0)])  # nor null, nor a bool
def test_year_range(years: list[object], expected: float) -> None:
    assert value_ranges([{"year": y} for y in years], 1) == expected


def test_the_task_year_bonus() -> None:
    # 2020 passes and is the task year: (1 + 0.5) / (1 + 0.5); 1999 passes, no bonus
    assert value_ranges([{"year": 2020}, {"year": 1999}], 2020) == 1.0
    assert value_ranges([{"year": 2020}, {"year": 3000}], 2020) == pytest.approx(1.5 / 2.5)
    assert value_ranges([{"year": 2020.0}], 2020) == 1.0
    # tally's default year is 0 (no task year): a year of 1 fails and earns no bonus
    assert tally([{"year": 1}]).value_ranges() == 0.0


def test_value_and_quantity_ranges() -> None:
    rows = [{"value": 1.5}, {"trade_value": 0}, {"tradeValue": -1}, {"primaryValue": "7"},
            {"value": None}]
    assert value_ranges(rows, 0) == pytest.approx(2 / 5)  # null is no value
    qty = [{"qty": 2.5}, {"quantity": 0}, {"netWgt": 0.5}, {"qty": None}, {"qty": "x"},
           {"netWgt": -0.5}]
    assert value_ranges(qty, 0) == pytest.approx(4 / 6)  # null is an allowed quantity
    assert value_ranges([{"other": 1}], 0) == 1.0  # no check applies


def test_type_consistency_per_field() -> None:
    rows = [{"a": 1, "b": "x", "c": None}, {"a": 2, "b": 3, "c": 1.5}, {"a": None, "c": None}]
    assert type_consistency(rows) == pytest.approx(2 / 3)  # b has str and int
    assert type_consistency([]) == 0.0


def test_values_json_cannot_encode_stay_distinct(monkeypatch: pytest.MonkeyPatch) -> None:
    """A value nested past the recursion limit while encoding is keyed by identity."""
    import json

    from agentmetrology.envs.comtrade.scoring import judge_rows

    class Deep:
        @staticmethod
        def dumps(*_: object, **__: object) -> str:
            raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(judge_rows, "json", Deep)
    rows = ({"year": [1], "reporter": 0, "partner": 0}, {"year": [2], "reporter": 0, "partner": 0})
    assert len(tally(rows, KEY).keys) == 2
    assert json.dumps([1]) == "[1]"  # only the module's reference was replaced



@pytest.mark.parametrize(("batches", "distinct"), [
    ([[{"year": 1, "reporter": 1, "partner": i} for i in range(5)]], 5),  # kept as columns
    ([[{"year": 1, "reporter": 1, "partner": i} for i in range(5)],  # ... then the set is
      [{"year": 1, "reporter": 1, "partner": i} for i in (3, 4, 5)]], 6),  # built: 3, 4 again
    ([[{"year": i % 2, "reporter": i % 3, "partner": 0} for i in range(6)]], 6),  # last repeats
    ([[{"year": i % 2, "reporter": 0, "partner": 0} for i in range(6)]], 2),
    ([[{"year": 1, "reporter": 1, "partner": p} for p in (1, 1.0, True, "1")]], 2),  # 1 == 1.0
    ([[{"year": [1], "reporter": 1, "partner": i} for i in range(3)]], 3),  # unhashable
    ([[{"year": 1, "reporter": 1, "partner": i} for i in range(3)],
      [{"year": 1, "partner": 0}, "not an object", {"year": 1, "reporter": None,
                                                     "partner": 0}]], 4),  # null when missing
])
def test_the_dedup_count_is_the_number_of_distinct_keys(batches: list[list[object]],
                                                         distinct: int) -> None:
    t = RowTally(KEY, [], 0)
    for batch in batches:
        t.add(tuple(batch))
    points = 6.0 * distinct / sum(map(len, batches))
    assert t.dedup_points() == pytest.approx(points)  # before the set is asked for
    assert len(t.keys) == distinct
    assert t.dedup_points() == pytest.approx(points)


def test_a_column_value_set_is_made_once_and_refuses_unhashable_values() -> None:
    """Both scorers read the record ids' set from the batch's columns: it is the column's set,
    the same object for the second asker, and a list value raises as set() does."""
    rows = ({"a": "x", "b": 1}, {"a": "y", "b": 1}, {"a": "x", "b": 2})
    c = columns._columns(rows)
    assert c is not None
    assert c.value_set("a") == {"x", "y"} and c.value_set("b") == {1, 2}
    assert c.value_set("a") is c.value_set("a")
    listed = columns._columns(({"a": ["x"]}, {"a": "y"}))
    assert listed is not None
    with pytest.raises(TypeError, match="unhashable"):
        listed.value_set("a")
