"""Properties of the seeded bootstraps: the interval holds the estimate; a seed fixes the bits."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from agentmetrology.stats import MIN_CLUSTERS, bootstrap_ci, cluster_bootstrap
from agentmetrology.stats.bootstrap import MIN_UNITS
from support.props import props

RESAMPLES = 200
VALUES = st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=25)
SCORES = st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=1, max_size=25)
SEEDS = st.integers(0, 2**31 - 1)


@props(60)
@given(st.one_of(VALUES, SCORES), st.sampled_from(["mean", "worst", "cvar", "reliability"]),
       SEEDS)
def test_interval_contains_point_and_is_seeded(values: list[float], statistic: str,
                                               seed: int) -> None:
    est = bootstrap_ci(values, statistic, resamples=RESAMPLES, seed=seed)
    if len(values) < MIN_UNITS:  # no interval below 3 values, and the result says why
        assert est.interval is None and est.interval_note is not None
        assert bootstrap_ci(values, statistic, resamples=RESAMPLES, seed=seed) == est
        return
    assert est.interval is not None and est.interval_note is None
    lo, hi = est.interval
    assert lo <= est.value <= hi
    again = bootstrap_ci(values, statistic, resamples=RESAMPLES, seed=seed)
    assert again == est  # bit-identical: same floats, not merely close
    assert np.float64(lo).tobytes() == np.float64(again.interval[0]).tobytes()
    assert est.seed == seed and est.n == len(values) and est.resamples == RESAMPLES


@props(60)
@given(st.lists(st.tuples(st.integers(0, 6), st.floats(0, 1)), min_size=1, max_size=30),
       SEEDS)
def test_cluster_interval_contains_point_and_is_seeded(rows: list[tuple[int, float]],
                                                       seed: int) -> None:
    clusters = [f"task{c}" for c, _ in rows]
    values = [v for _, v in rows]
    est = cluster_bootstrap(values, clusters, resamples=RESAMPLES, seed=seed)
    assert cluster_bootstrap(values, clusters, resamples=RESAMPLES, seed=seed) == est
    if est.n < MIN_CLUSTERS:  # no interval below 3 clusters, and the result says why
        assert est.interval is None and est.interval_note is not None
    else:
        assert est.interval is not None and est.interval_note is None
        lo, hi = est.interval
        assert lo <= est.value <= hi
    # Every task weighs the same however many repeats it has.
    by_task: dict[str, list[float]] = {}
    for c, v in zip(clusters, values, strict=True):
        by_task.setdefault(c, []).append(v)
    means = [float(np.mean(by_task[c])) for c in sorted(by_task)]
    assert est.n == len(by_task)
    assert abs(est.value - float(np.mean(means))) <= 1e-12


@props(30)
@given(st.lists(st.tuples(st.integers(0, 4), st.floats(0, 1)), min_size=2, max_size=20),
       SEEDS)
def test_stratified_cluster_interval_contains_point(rows: list[tuple[int, float]],
                                                    seed: int) -> None:
    clusters = [f"t{c}" for c, _ in rows]
    strata = [f"s{c % 2}" for c, _ in rows]  # constant within each cluster
    est = cluster_bootstrap([v for _, v in rows], clusters, strata=strata,
                            resamples=RESAMPLES, seed=seed)
    per_stratum: dict[str, set[str]] = {}
    for c, s in zip(clusters, strata, strict=True):
        per_stratum.setdefault(s, set()).add(c)
    smallest = min(len(v) for v in per_stratum.values())
    assert (est.interval is None) is (est.n < MIN_CLUSTERS or smallest < MIN_CLUSTERS)
    if est.interval is not None:
        assert est.interval[0] <= est.value <= est.interval[1]
