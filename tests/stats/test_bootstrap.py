"""Bootstrap: determinism, coverage near nominal, shared resamples, strata, chunking.

Percentile bootstrap (stats/bootstrap.py, docs/stats.md): a callable statistic, the
interval equal to numpy's linear quantile to the last bit, seeded defaults, CVaR's k worst.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats import bootstrap as bootstrap_module
from agentmetrology.stats._seeding import generator
from agentmetrology.stats.bootstrap import (
    bootstrap_ci,
    bootstrap_cis,
    bootstrap_distributions,
    percentile_interval,
    reducer,
)


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


X = np.array([0.2, 0.9, 0.4, 0.4, 1.0, 0.0, 0.7, 0.3, 0.8, 0.5, 0.6])


def spread(a: np.ndarray) -> np.ndarray:
    """Row-wise max − min."""
    return a.max(axis=-1) - a.min(axis=-1)


def test_callable_statistic_estimate() -> None:
    est = bootstrap_ci(X, spread, resamples=400, seed=3, confidence=0.9)
    (dist,) = bootstrap_distributions(X, [lambda m: spread(m.T)], resamples=400, seed=3)
    assert est.value == 1.0 and est.n == X.size
    assert est.interval == (np.quantile(dist, 0.05), np.quantile(dist, 0.95))
    assert (est.method, est.seed, est.confidence, est.resamples) == (
        "percentile bootstrap of spread", 3, 0.9, 400)
    unnamed = bootstrap_ci(X, functools.partial(spread), resamples=50)
    assert unnamed.method == "percentile bootstrap of statistic"
    assert unnamed == bootstrap_ci(X, functools.partial(spread), resamples=50, seed=0)


@pytest.mark.parametrize("size", [2, 11, 21, 40, 101, 1000])
@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.9, 0.95, 0.99])
def test_percentile_interval_is_numpys_linear_quantile_bit_for_bit(size: int,
                                                                   confidence: float) -> None:
    d = np.random.default_rng(size).normal(size=size)
    tail = (1 - confidence) / 2
    assert percentile_interval(d, confidence) == (np.quantile(d, tail),
                                                  np.quantile(d, 1 - tail))


def test_defaults_are_seed_0_alpha_02_tau_09() -> None:
    assert bootstrap_ci(X, resamples=100) == bootstrap_ci(X, resamples=100, seed=0)
    assert bootstrap_cis(X, ["reliability", "cvar"], resamples=100) == bootstrap_cis(
        X, ["reliability", "cvar"], resamples=100, seed=0, alpha=0.2, tau=0.9)
    rel, cvar = bootstrap_cis(X, ["reliability", "cvar"], resamples=100, alpha=0.3, tau=0.55)
    assert rel.value == 5 / 11  # 0.9, 1.0, 0.7, 0.8, 0.6 are >= 0.55
    assert cvar.value == pytest.approx((0.0 + 0.2 + 0.3 + 0.4) / 4)  # ceil(0.3 × 11) = 4 worst


@pytest.mark.parametrize("alpha", [0.2, 0.3, 0.5, 0.7])
def test_cvar_point_estimate_is_the_mean_of_the_k_worst(alpha: float) -> None:
    (cvar,) = bootstrap_cis(X, ["cvar"], resamples=20, alpha=alpha)
    k = int(np.ceil(round(alpha * X.size, 9)))
    assert cvar.value == pytest.approx(np.sort(X)[:k].mean(), rel=1e-12)


def test_resamples_are_refused_by_name() -> None:
    for call in (lambda: bootstrap_ci(X, spread, resamples=0),
                 lambda: bootstrap_cis(X, ["mean"], resamples=0)):
        with pytest.raises(ValueError, match=r"^resamples must be an integer >= 1, got 0$"):
            call()


def test_reducer_arguments_are_checked_by_name_and_tau_counts_ties() -> None:
    assert bootstrap_cis([0.5, 0.4], ["reliability"], resamples=10, tau=0.5)[0].value == 0.5
    assert bootstrap_cis([0.5, 0.0], ["reliability"], resamples=10, tau=0.0)[0].value == 1.0
    assert reducer("cvar") is not None and reducer("reliability") is not None  # defaults valid
    with pytest.raises(ValueError, match=r"^alpha "):
        reducer("cvar", alpha=0.0)
    with pytest.raises(ValueError, match=r"^tau "):
        reducer("reliability", tau=1.5)
    with pytest.raises(ValueError, match=r"^statistic must be one of mean, worst, cvar, "
                                         r"reliability or a callable, got 'median'$"):
        reducer("median")


def test_named_statistic_through_bootstrap_ci_keeps_every_option() -> None:
    for name in ("cvar", "reliability"):
        assert bootstrap_ci(X, name, resamples=60, seed=2, confidence=0.8, alpha=0.5,
                            tau=0.55) == bootstrap_cis(X, [name], resamples=60, seed=2,
                                                       confidence=0.8, alpha=0.5, tau=0.55)[0]


def test_cvar_of_a_large_cell_is_the_mean_of_its_k_sorted_lowest() -> None:
    # 1000 runs, alpha 0.2: k = 200 of each resample, whatever order a partition leaves them in
    # (numpy's introselect happens to leave small arrays nearly sorted, so a small cell would
    # not notice a partition around the wrong index).
    from agentmetrology.stats._seeding import generator

    x = generator(4).uniform(size=1000)

    def sorted_cvar(a: np.ndarray) -> np.ndarray:
        return np.sort(a, axis=-1)[..., :200].sum(axis=-1) / 200

    named = bootstrap_ci(x, "cvar", alpha=0.2, resamples=200, seed=1)
    reference = bootstrap_ci(x, sorted_cvar, resamples=200, seed=1)
    assert named.value == pytest.approx(np.sort(x)[:200].mean(), rel=1e-12)
    assert named.interval == pytest.approx(reference.interval, rel=1e-12)
    # Every resample, not only the two at the interval's ends.
    (by_name,) = bootstrap_distributions(x, [reducer("cvar", alpha=0.2)], resamples=200, seed=1)
    (by_sort,) = bootstrap_distributions(x, [lambda m: sorted_cvar(m.T)], resamples=200, seed=1)
    assert by_name == pytest.approx(by_sort, rel=1e-12)


def test_cvar_count_rounds_alpha_n_to_9_decimals_before_the_ceiling() -> None:
    from agentmetrology.stats.bootstrap import cvar_count

    assert cvar_count(0.140000000006, 50) == 7  # 7.0000000003 rounds to 7.0: 7 runs, not 8
    assert cvar_count(0.14000000006, 50) == 8  # 7.000000003 keeps its 3e-9: 8 runs


def test_a_half_way_quantile_takes_numpys_upper_lerp() -> None:
    # confidence 0.5 of 3 values: h = 0.5 and 1.5, t = 0.5 exactly, where numpy computes
    # b - (b - a) * (1 - t); a + (b - a) * t differs in the last bit for these values.
    d = np.array([0.06, 0.64, 0.85])
    assert percentile_interval(d, 0.5) == tuple(np.quantile(d, [0.25, 0.75]))


def test_strata_resample_their_members_in_input_order() -> None:
    from agentmetrology import stats
    from agentmetrology.stats._seeding import generator

    n, seed, resamples = 120, 5, 300
    values = generator(6).uniform(size=n)
    strata = np.arange(n) % 3  # interleaved: many ties for an unstable sort to reorder
    # Rows come in stratum order; row r draws uniformly from its stratum's members, which keep
    # their input order.
    members = [np.flatnonzero(strata == s) for s in range(3)]
    positions = np.concatenate(members)
    sizes = np.repeat([m.size for m in members], [m.size for m in members])
    starts = np.repeat(np.cumsum([0] + [m.size for m in members[:-1]]), [m.size for m in members])
    local = generator(seed).integers(0, sizes[:, np.newaxis], size=(n, resamples))
    dist = values[positions[starts[:, np.newaxis] + local]].sum(axis=0) / n
    tail = (1.0 - 0.95) / 2.0
    expected = tuple(np.quantile(dist, [tail, 1.0 - tail]))
    result = stats.cluster_bootstrap(values, np.arange(n), strata=strata, resamples=resamples,
                                     seed=seed)
    assert result.interval == expected


def test_a_draw_holds_at_most_8m_indices() -> None:
    # docs/stats.md: very large inputs are split into blocks of at most 8M (2^23) indices per
    # draw. 4.2M values fit once in a block, not twice: each resample is its own draw.
    from agentmetrology.stats._seeding import generator

    n = 4_200_000
    x = np.linspace(0.0, 1.0, n)
    (dist,) = bootstrap_distributions(x, [reducer("mean")], resamples=2, seed=0)
    rng = generator(0)
    expected = [x[rng.integers(0, n, size=(n, 1))].sum(axis=0)[0] / n for _ in range(2)]
    assert dist.tolist() == expected
