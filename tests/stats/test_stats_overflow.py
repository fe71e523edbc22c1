"""A statistic that overflows float64 is refused, never serialised as null (shown as a dash)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats.results import Estimate, non_finite_fields


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
