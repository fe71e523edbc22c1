"""Per-cell statistics: CVaR rule, reliability, gap, Wilson, the cell summary and table."""

from __future__ import annotations

import json

import pytest

from agentmetrology import stats


def test_cvar_count_rounds_away_float_noise() -> None:
    assert 0.14 * 50 > 7  # the float product is 7.000000000000001
    assert stats.cvar_count(0.14, 50) == 7
    assert stats.cvar_count(0.2, 10) == 2
    assert stats.cvar_count(0.25, 10) == 3  # ceil(2.5)
    assert stats.cvar_count(0.01, 10) == 1  # never fewer than one run
    assert stats.cvar_count(1.0, 7) == 7


def test_cvar_takes_the_lowest_values_and_ties_do_not_matter() -> None:
    assert stats.cvar([5, 1, 3, 1, 9], alpha=0.4).value == 1.0
    assert stats.cvar([0.5, 0.2, 0.2, 0.9], alpha=0.75).value == pytest.approx(0.3)
    assert stats.cvar([3, 1, 2], alpha=1.0).value == pytest.approx(2.0)


def test_reliability_is_inclusive_at_tau() -> None:
    assert stats.reliability_at([0.9, 0.89, 1.0, 0.5], tau=0.9).value == 0.5
    assert stats.reliability_at([0.9, 0.89, 1.0, 0.5], tau=0.95).value == 0.25


def test_reliability_gap_static_versus_hardest() -> None:
    assert stats.reliability_gap([0.8, 1.0], hardest=[0.3, 0.7]).value == pytest.approx(0.6)


def test_wilson_edges() -> None:
    zero = stats.wilson(0, 10)
    full = stats.wilson(10, 10)
    assert zero.interval is not None and zero.interval[0] == 0.0
    assert full.interval is not None and full.interval[1] == 1.0
    assert stats.wilson(5, 10, confidence=0.99).interval != stats.wilson(5, 10).interval


def test_summarize_cell_fields() -> None:
    s = stats.summarize_cell([1, 1, 1, 1, 0, 0.81, 1, 1, 0.81, 0.81], seed=3)
    assert s.n == 10
    assert s.mean.value == pytest.approx(0.843)
    assert s.cvar.value == pytest.approx(0.405)
    assert s.reliability.value == pytest.approx(0.6)
    assert s.gap.value == pytest.approx(0.843)
    assert s.mean.interval is not None and s.mean.interval[0] <= 0.843 <= s.mean.interval[1]
    json.dumps(s.to_dict(), allow_nan=False)


def test_reliability_table_sorts_by_mean_and_shows_worst_rank() -> None:
    groups = {
        ("steady",): [0.7, 0.7, 0.7, 0.7],
        ("spiky",): [1.0, 1.0, 1.0, 0.0],  # best mean, worst floor
        ("weak",): [0.5, 0.5, 0.6, 0.4],
    }
    rows = stats.reliability_table(groups)
    assert [r.key for r in rows] == [("spiky",), ("steady",), ("weak",)]
    assert [r.rank_mean for r in rows] == [1, 2, 3]
    assert [r.rank_worst for r in rows] == [3, 1, 2]


def test_reliability_table_ties_share_rank_and_groups_are_independent() -> None:
    rows = stats.reliability_table({"x": [0.5, 0.5], "y": [0.5, 0.5], "z": [0.1, 0.2]})
    assert [r.rank_mean for r in rows] == [1, 1, 3]
    alone = stats.reliability_table({"z": [0.1, 0.2]})
    # Each group restarts the seeded stream: its interval does not depend on other groups.
    assert alone[0].summary.mean.interval == rows[2].summary.mean.interval


def test_records_serialise_without_nan() -> None:
    record = stats.agreement(["a", "a"], ["a", "a"])  # kappa undefined
    data = record.to_dict()
    assert data["value"] is None
    json.dumps(data, allow_nan=False)
    estimate = stats.Estimate(value=float("nan"), interval=(float("-inf"), 1.0), n=1, method="x")
    assert estimate.to_dict()["value"] is None
    assert estimate.to_dict()["interval"] == [None, 1.0]


def test_estimates_are_frozen() -> None:
    est = stats.mean([1.0, 2.0])
    with pytest.raises(AttributeError):
        est.value = 3.0  # type: ignore[misc]
