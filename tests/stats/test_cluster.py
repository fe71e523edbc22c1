"""Task-cluster bootstrap pieces (docs/stats.md): repeats averaged per task, every task
weighs the same, strata constant within a task, the method string names the scheme."""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology.stats.cluster import (
    cluster_bootstrap,
    cluster_means,
    resampling_name,
    unit_differences,
)


def test_cluster_means_in_sorted_label_order_with_first_row_strata() -> None:
    means, strata = cluster_means([1.0, 0.0, 1.0, 1.0, 0.0], ["b", "a", "b", "c", "a"],
                                  ["y", "x", "y", "y", "x"])
    assert means.tolist() == [0.0, 1.0, 1.0]  # a, b, c
    assert strata is not None and strata.tolist() == [0, 1, 1]  # x, y, y
    assert cluster_means([2.0, 4.0], ["t", "t"])[1] is None
    with pytest.raises(ValueError, match="strata must be constant within each cluster"):
        cluster_means([1.0, 0.0], ["t", "t"], ["x", "y"])


def test_cluster_bootstrap_weighs_tasks_equally_and_names_itself() -> None:
    # task a has three repeats (mean 1/3), b and c one each (1 and 0): the estimate is 4/9,
    # not the row mean 2/5
    values, clusters = [1.0, 0.0, 0.0, 1.0, 0.0], ["a", "a", "a", "b", "c"]
    est = cluster_bootstrap(values, clusters, resamples=200, seed=5)
    assert est.value == pytest.approx(4 / 9, rel=1e-15)
    assert (est.n, est.seed, est.resamples, est.confidence) == (3, 5, 200, 0.95)
    assert est.method == "task-cluster bootstrap of the mean (3 clusters, 5 values)"
    lo, hi = est.interval
    assert 0.0 <= lo <= est.value <= hi <= 1.0 + 1e-12
    assert cluster_bootstrap(values, clusters, resamples=200, seed=5) == est  # seeded
    strat = cluster_bootstrap(values, clusters, strata=["s", "s", "s", "t", "u"], resamples=50,
                              confidence=0.9, seed=1)
    assert strat.method == ("stratified task-cluster bootstrap of the mean (3 clusters, "
                            "5 values)")
    # one task per stratum: every resample is the data itself, so there is no interval (it
    # was [4/9, 4/9], read as certainty), and the note says why
    assert strat.interval is None and strat.interval_note == (
        "no interval: a stratum holds 1 cluster; a bootstrap within it has 1 distinct "
        "resample, and each stratum needs at least 3 clusters")
    assert strat.confidence == 0.9
    with pytest.raises(ValueError):
        cluster_bootstrap(values, clusters, resamples=0)
    with pytest.raises(ValueError):
        cluster_bootstrap(values, clusters, confidence=1.5)


def test_resampling_names() -> None:
    assert resampling_name(None, None) == "pair bootstrap"
    assert resampling_name(["t"], None) == "task-cluster bootstrap"
    assert resampling_name(None, ["s"]) == "stratified pair bootstrap"
    assert resampling_name(["t"], ["s"]) == "stratified task-cluster bootstrap"


def test_unit_differences_per_pair_or_per_cluster() -> None:
    d, s = unit_differences([0.0, 1.0, 1.0], [1.0, 1.0, 0.0])
    assert d.tolist() == [1.0, 0.0, -1.0] and s is None
    d, s = unit_differences([0.0, 1.0, 1.0], [1.0, 1.0, 0.0], strata=["x", "y", "x"])
    assert d.tolist() == [1.0, 0.0, -1.0] and s is not None and s.tolist() == [0, 1, 0]
    d, s = unit_differences([0.0, 1.0, 1.0], [1.0, 1.0, 0.0], clusters=["t", "t", "u"])
    assert d.tolist() == [0.5, -1.0] and s is None
    d, s = unit_differences(np.array([0.0, 0.0]), np.array([1.0, 0.0]), clusters=["t", "u"],
                            strata=["x", "y"])
    assert d.tolist() == [1.0, 0.0] and s is not None and s.tolist() == [0, 1]


def test_refusals_name_the_argument() -> None:
    with pytest.raises(ValueError, match=r"^clusters must have one label per value"):
        cluster_means([1.0, 0.0], ["a"])
    with pytest.raises(ValueError, match=r"^strata must have one label per value"):
        cluster_means([1.0, 0.0], ["a", "b"], ["x"])
    with pytest.raises(ValueError, match=r"^strata must have one label per value"):
        unit_differences([1.0, 0.0], [0.0, 0.0], strata=["x"])
    with pytest.raises(ValueError, match=r"^resamples must be an integer >= 1, got 0$"):
        cluster_bootstrap([1.0, 0.0], ["a", "b"], resamples=0)
    with pytest.raises(ValueError, match=r"^strata must be constant within each cluster$"):
        cluster_means([1.0, 0.0], ["t", "t"], ["x", "y"])


def test_strata_codes_are_integers_and_the_default_seed_is_0() -> None:
    _, strata = cluster_means([1.0, 0.0], ["a", "b"], ["x", "y"])
    assert strata is not None and strata.dtype == np.int64
    assert cluster_bootstrap([1.0, 0.0, 0.5], ["a", "b", "c"], resamples=30) == \
        cluster_bootstrap([1.0, 0.0, 0.5], ["a", "b", "c"], resamples=30, seed=0)


def test_signed_values_that_cancel_within_a_cluster_average_to_exactly_0() -> None:
    gaps = [0.3 - 0.2, 0.7 - 0.8, 0.1 - 0.2, 0.9 - 0.8] * 3
    est = cluster_bootstrap(gaps, ["a"] * 4 + ["b"] * 4 + ["c"] * 4, seed=0)
    assert est.value == 0.0 and est.interval == (0.0, 0.0)
    kept = cluster_bootstrap([0.1, 0.3, 0.5, 0.7], ["a", "a", "b", "b"], seed=0)
    assert kept.value == pytest.approx(0.4)  # non-negative values are never cancelled
