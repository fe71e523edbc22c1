"""A statistic that overflows float64 is refused, never serialised as null (shown as a dash).

Result records as plain data: booleans stay booleans, undefined numbers become None, and an
overflowed statistic is named by its dotted path (nested records and dicts too) and refused.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats.results import Estimate, check_finite_record, non_finite_fields, plain


def test_non_finite_fields_names_every_overflowed_statistic() -> None:
    est = Estimate(value=math.inf, interval=(0.5, math.nan), n=3, method="m")
    assert non_finite_fields(est) == ["value", "interval.1"]
    assert non_finite_fields(Estimate(value=0.5, interval=(0.4, 0.6), n=3, method="m")) == []


def test_summarize_cell_refuses_an_overflowing_mean() -> None:
    with (
        np.errstate(over="ignore", invalid="ignore"),
        pytest.raises(ValueError, match=r"summarize_cell: statistic mean\.value is not finite"),
    ):
        stats.summarize_cell([1e308, 1e308, 1e308])


def test_compare_paired_refuses_an_overflowing_difference() -> None:
    with (
        np.errstate(over="ignore", invalid="ignore"),
        pytest.raises(
            ValueError, match=r"compare_paired: statistic difference\.value is not finite"
        ),
    ):
        stats.compare_paired([-1e308, -1e308], [1e308, 1e308])


def test_large_finite_values_still_summarise() -> None:
    summary = stats.summarize_cell([1e100, 2e100, 3e100], resamples=200)
    assert summary.mean.value == pytest.approx(2e100)
    assert non_finite_fields(summary) == []


def test_plain_keeps_types_json_can_hold() -> None:
    assert plain(True) is True and plain(np.bool_(False)) is False
    assert plain(np.int64(3)) == 3 and type(plain(np.int64(3))) is int
    assert plain({1: [np.float32(0.5), math.nan, (math.inf, -1)]}) == {"1": [0.5, None,
                                                                           [None, -1]]}
    holm = stats.holm([0.01, 0.5]).to_dict()
    assert holm["rejected"] == [True, False]
    json.dumps(holm, allow_nan=False)


def _shares(**shares: float) -> stats.VarianceShares:
    """Return a VarianceShares record with the given shares."""
    return stats.VarianceShares(value=1.0, shares=dict(shares), sums_of_squares={"a": 1.0},
                                df={"a": 1}, n=4)


def test_non_finite_fields_walk_dicts_and_keep_every_key_character() -> None:
    record = _shares(aX=math.inf, b=0.5, ab=math.nan)
    assert non_finite_fields(record) == ["shares.aX", "shares.ab"]
    assert non_finite_fields({"x.": {"y": [1.0, -math.inf]}}) == ["x..y.1"]
    assert non_finite_fields(_shares(a=0.5)) == []


def test_check_finite_record_message() -> None:
    check_finite_record(_shares(a=0.5), "eta")  # a finite record passes
    with pytest.raises(ValueError) as info:
        check_finite_record(_shares(a=0.5, b=math.inf), "eta")
    assert str(info.value) == (
        "eta: statistic shares.b is not finite (the values are too large in magnitude for "
        "float64 arithmetic); rescale the values"
    )
