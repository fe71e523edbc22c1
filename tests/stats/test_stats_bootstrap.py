"""Bootstrap: determinism, coverage near nominal, shared resamples, strata, chunking."""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats import bootstrap as bootstrap_module
from agentmetrology.stats._seeding import generator


def _data(seed: int, n: int = 30) -> np.ndarray:
    return generator(seed).normal(0.5, 0.2, size=n)


def test_same_seed_gives_bit_identical_intervals() -> None:
    x = _data(1)
    first = stats.bootstrap_ci(x, seed=7)
    second = stats.bootstrap_ci(x.copy(), seed=7)
    assert first.interval == second.interval
    assert first.to_dict() == second.to_dict()


def test_different_seed_gives_different_resamples() -> None:
    x = _data(1)
    assert stats.bootstrap_ci(x, seed=7).interval != stats.bootstrap_ci(x, seed=8).interval


def test_default_is_2000_percentile_resamples() -> None:
    est = stats.bootstrap_ci(_data(2))
    assert est.resamples == 2000
    assert est.confidence == 0.95
    assert "percentile" in est.method


def test_percentile_interval_matches_numpy_quantile_of_the_same_resamples() -> None:
    x = _data(3, n=12)
    # Resamples are the columns of an (n, resamples) index draw.
    idx = generator(5).integers(0, x.size, size=(x.size, 2000))
    expected = np.quantile(x[idx].sum(axis=0) / x.size, [0.025, 0.975])
    assert stats.bootstrap_ci(x, seed=5).interval == (expected[0], expected[1])


def test_coverage_of_the_mean_is_near_nominal() -> None:
    # 400 simulated datasets with known mean 0.5; the 95% interval should cover ~95% of them.
    data = generator(2024).normal(0.5, 0.2, size=(400, 50))
    covered = 0
    for i, row in enumerate(data):
        lo, hi = stats.bootstrap_ci(row, seed=i).interval or (np.nan, np.nan)
        covered += lo <= 0.5 <= hi
    assert 0.92 <= covered / 400 <= 0.98


def test_cluster_bootstrap_coverage_is_near_nominal() -> None:
    # Tasks differ (random task effect) and repeats are correlated within a task.
    rng = generator(99)
    tasks = np.repeat(np.arange(40), 3)
    covered = 0
    for i in range(200):
        effects = rng.normal(0.0, 0.3, size=40)
        values = 0.5 + effects[tasks] + rng.normal(0.0, 0.1, size=tasks.size)
        lo, hi = stats.cluster_bootstrap(values, tasks, seed=i).interval or (np.nan, np.nan)
        covered += lo <= 0.5 <= hi
    assert 0.90 <= covered / 200 <= 0.99


def test_named_statistics_share_resamples() -> None:
    x = _data(4)
    mean_ci, cvar_ci, rel_ci, worst_ci = stats.bootstrap_cis(
        x, ["mean", "cvar", "reliability", "worst"], seed=3, tau=0.5
    )
    assert mean_ci.interval == stats.bootstrap_ci(x, "mean", seed=3).interval
    assert cvar_ci.interval == stats.bootstrap_ci(x, "cvar", seed=3).interval
    assert cvar_ci.value == stats.cvar(x).value
    assert rel_ci.value == stats.reliability_at(x, tau=0.5).value
    assert worst_ci.value == float(x.min())


def test_callable_statistic() -> None:
    x = _data(5)

    def median(m: np.ndarray) -> np.ndarray:
        return np.median(m, axis=1)

    est = stats.bootstrap_ci(x, median, seed=1)
    assert est.value == pytest.approx(float(np.median(x)))
    assert "median" in est.method


def test_blocks_bound_memory_and_stay_deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    x = _data(6, n=50)
    monkeypatch.setattr(bootstrap_module, "_BLOCK_ELEMENTS", 50 * 7)  # 7 resamples per block
    first = stats.bootstrap_ci(x, seed=2, resamples=100)
    second = stats.bootstrap_ci(x, seed=2, resamples=100)
    assert first.interval == second.interval
    assert first.interval is not None and first.interval[0] < first.interval[1]


def test_stratified_resampling_keeps_stratum_sizes() -> None:
    # Stratum "s0" tasks are all 0 and "s1" tasks all 1: a stratified bootstrap cannot move the
    # mean away from 5/8, while an unstratified one can.
    values = np.array([0.0] * 3 + [1.0] * 5)
    tasks = list(range(8))
    strata = ["s0"] * 3 + ["s1"] * 5
    fixed = stats.cluster_bootstrap(values, tasks, strata=strata, seed=0)
    assert fixed.interval == (0.625, 0.625)
    free = stats.cluster_bootstrap(values, tasks, seed=0)
    assert free.interval is not None and free.interval[0] < 0.625 < free.interval[1]


def test_cluster_bootstrap_averages_repeats_within_task_first() -> None:
    values = [1.0, 1.0, 1.0, 1.0, 0.0]  # task a has four repeats, task b one
    est = stats.cluster_bootstrap(values, ["a", "a", "a", "a", "b"], seed=0)
    assert est.value == 0.5  # mean of task means, not the row mean 0.8
    assert est.n == 2


def test_cluster_bootstrap_rejects_strata_that_vary_within_a_cluster() -> None:
    with pytest.raises(ValueError, match="strata"):
        stats.cluster_bootstrap([1, 2, 3], ["a", "a", "b"], strata=["x", "y", "x"])


@pytest.mark.parametrize(
    ("n", "alpha"), [(1, 0.2), (5, 0.2), (10, 0.2), (10, 0.5), (30, 0.2), (80, 0.1)]
)
def test_cvar_reducer_matches_sorting(n: int, alpha: float) -> None:
    # Both selection routes (min for k = 1, partition above) against a full sort.
    x = np.round(generator(n).uniform(size=n), 1)  # rounding creates ties
    m = x[generator(1).integers(0, n, size=(n, 300))]
    k = stats.cvar_count(alpha, n)
    expected = np.sort(m, axis=0)[:k].mean(axis=0)
    got = bootstrap_module.reducer("cvar", alpha=alpha)(m)
    assert np.allclose(got, expected, rtol=0, atol=1e-12)
