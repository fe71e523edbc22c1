"""Fault realisations (docs/comtrade.md, "Faults": the request counter).

Counts follow the spec's formulas (floor in legacy, ceil in seeded, capped fail lists); the
seeded draws are pinned exactly because the same seed must give byte-identical episodes in
every version: a changed draw silently changes every seeded episode.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from agentmetrology.envs.comtrade import faults
from agentmetrology.envs.comtrade.tasks import TASKS
from agentmetrology.runtime.rng import string_random

PAGE = [{"i": i} for i in range(10)]
PREVIOUS = [{"p": i} for i in range(5)]


def _ids(rows: list[dict]) -> list[object]:
    return [r["i"] if "i" in r else f"p{r['p']}" for r in rows]


def test_seeded_fail_lists_are_pinned_per_seed_and_code() -> None:
    # one failing request among 2..3 per episode; which one depends on the seed and the code
    t4, t5 = TASKS["T4_rate_limit_429"], TASKS["T5_server_error_500"]
    assert [sorted(faults.fail_lists(t4, s, "seeded")[0]) for s in range(8)] == [
        [3], [2], [2], [3], [3], [2], [3], [3]]
    assert [sorted(faults.fail_lists(t5, s, "seeded")[1]) for s in range(8)] == [
        [3], [2], [2], [3], [3], [2], [3], [2]]
    assert faults.fail_lists(t4, 0, "seeded")[1] == frozenset()
    assert faults.fail_lists(t4, 0, "legacy") == (frozenset({2}), frozenset())


def test_seeded_fail_list_is_capped_at_the_clean_pass() -> None:
    t = replace(TASKS["T4_rate_limit_429"], fail_429=(2, 3, 4, 5, 6), fail_500=(2, 3))
    f429, f500 = faults.fail_lists(t, 7, "seeded")
    assert f429 == frozenset({2, 3})  # capped: only requests 2..3 exist after the first
    assert f500 == frozenset({2, 3})


def test_drift_order_appends_the_seed_only_when_seeded() -> None:
    t = TASKS["T6_page_drift"]
    assert faults.drift_order(t, 0, "legacy", 1) == faults.drift_order(t, 1, "legacy", 1)
    assert faults.drift_order(t, 0, "seeded", 1) != faults.drift_order(t, 1, "seeded", 1)
    assert faults.drift_order(t, 0, "seeded", 1)[:8] == [0, 8, 18, 27, 29, 23, 10, 25]
    assert sorted(faults.drift_order(t, 0, "seeded", 1)) == list(range(t.rows))


def test_seeded_duplicates_insert_ceil_counts_at_pinned_positions() -> None:
    out, n = faults.inject_duplicates_seeded("T3_duplicates:dup:0:1", PAGE, PREVIOUS, 0.2, 0.1)
    assert n == 3  # ceil(10 × 0.2) = 2 within + ceil(10 × 0.1) = 1 cross
    assert _ids(out) == ["p1", 0, 8, 1, 2, 3, 4, 5, 6, 7, 8, 6, 9]
    # one row: ceil(1 × 0.08) = 1 copy of it, inserted (the page grows to two)
    out, n = faults.inject_duplicates_seeded("x", [{"i": 0}], [], 0.08, 0.5)
    assert (out, n) == ([{"i": 0}, {"i": 0}], 1)
    assert faults.inject_duplicates_seeded("x", [], PREVIOUS, 0.5, 0.5) == ([], 0)
    # insert positions are uniform over 0..len (both ends included), drawn after the copies
    out, n = faults.inject_duplicates_seeded("T3_duplicates:dup:1:1", PAGE[:2], PREVIOUS[:3],
                                             1.0, 1.0)
    assert (n, _ids(out)) == (4, [0, 1, "p0", "p0", 1, 0])



def _seeded_by_random(label: str, page: list[dict], previous: list[dict], rate: float,
                      cross_rate: float) -> tuple[list[dict], int]:
    """The seeded insertion written with random.Random's own randrange."""
    if not page:
        return page, 0
    r = string_random(label)
    out = list(page)
    copies = [dict(page[r.randrange(len(page))]) for _ in range(math.ceil(len(page) * rate))]
    if previous:
        copies += [dict(previous[r.randrange(len(previous))])
                   for _ in range(math.ceil(len(page) * cross_rate))]
    for row in copies:
        out.insert(r.randrange(len(out) + 1), row)
    return out, len(copies)


def test_seeded_duplicates_draw_what_random_draws() -> None:
    for i in range(600):
        page = [{"i": j} for j in range(1 + i % 23)]
        previous = [{"p": j} for j in range(i % 7)]
        rate, cross = (0.05, 0.08, 0.3, 0.5, 1.0)[i % 5], (0.0, 0.03, 0.15, 0.5)[i % 4]
        label = f"T8_mixed_faults:dup:{i}:{i % 9}"
        got = faults.inject_duplicates_seeded(label, page, previous, rate, cross)
        assert got == _seeded_by_random(label, page, previous, rate, cross)
        assert all(row is not src for row in got[0] for src in previous)  # copies, not aliases

def test_legacy_duplicates_overwrite_and_one_row_pages_still_get_cross_copies() -> None:
    out = faults.inject_duplicates_legacy("T", 0, [{"i": 0}], [{"p": 3}], 0.0, 1.0)
    assert out == [{"p": 3}]  # floor(1 × 1.0) = 1 cross overwrite of the only row
    assert faults.inject_duplicates_legacy("T", 0, [], PREVIOUS, 1.0, 1.0) == []
    out = faults.inject_duplicates_legacy("T", 0, PAGE, [], 0.09, 0.0)
    assert out == PAGE  # floor(10 × 0.09) = 0: legacy injects nothing below 10%


def test_drop_rows_removes_ceil_count_keeping_order() -> None:
    kept = faults.drop_rows("T:adv-drop:0:3", PAGE, 0.25)
    assert _ids(kept) == [0, 1, 2, 3, 4, 6, 9]  # ceil(10 × 0.25) = 3 gone, order kept
    assert faults.drop_rows("T:adv-drop:0:3", PAGE, 0.25) == kept  # seeded by its label
    assert len(faults.drop_rows("T:adv-drop:0:4", PAGE, 0.01)) == 9  # ceil(0.1) = 1
    assert faults.drop_rows("l", PAGE, 0.0) == PAGE
    assert faults.drop_rows("l", PAGE, 1.0) == [] == faults.drop_rows("l", PAGE, 3.0)
    assert faults.drop_rows("l", [], 0.5) == []
    assert faults.drop_rows("l", PAGE, -0.5) == PAGE  # a negative rate drops nothing


def test_sample_draws_what_random_sample_draws() -> None:
    # the pool branch (populations up to 21) through string_bits, larger ones by Random itself
    for i in range(1500):
        population = list(range(2, 2 + i % 30))
        k = (i // 30) % (len(population) + 1)
        label = f"T8_mixed_faults:fail{(429, 500)[i % 2]}:{i}"
        assert faults.sample(label, population, k) == string_random(label).sample(population, k)
    with pytest.raises(ValueError, match="Sample larger than population"):
        faults.sample("x", [2, 3], 3)


def test_drift_rows_are_the_drift_orders_rows_copied() -> None:
    t = TASKS["T6_page_drift"]
    rows = [{"i": i} for i in range(t.rows)]
    for seed, profile in ((0, "seeded"), (7, "seeded"), (None, "legacy")):
        for counter in range(1, 30):
            label = faults.drift_label(t, seed, profile, counter)
            for start in range(0, t.rows + t.page_size, t.page_size):
                order = faults.drift_order(t, seed, profile, counter, start)
                got = faults.drift_rows(rows, label, start, t.page_size)
                assert got == [rows[j] for j in order[start:start + t.page_size]]
                assert not any(g is r for g in got for r in rows)  # copies, not the rows
    assert faults.drift_label(t, 3, "seeded", 2) == "T6_page_drift:drift:2:3"
    assert faults.drift_label(t, 3, "legacy", 2) == "T6_page_drift:drift:2"
