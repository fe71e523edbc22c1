"""compare_paired is "all of the above for B vs A": each part equals the statistic called alone.

Every argument (clusters, strata, margin, tau, confidence, resamples, draws, seed) must reach
every part it concerns; flips and McNemar count pairs as passes at value >= tau (inclusive).
"""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats._seeding import generator

TAU = 0.6


def _data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Return paired values on a 0.1 grid (so some sit exactly at tau) with a small gain."""
    rng = generator(seed)
    a = rng.integers(0, 11, size=n) / 10
    b = np.clip(a + rng.integers(-2, 4, size=n) / 10, 0.0, 1.0)
    a[:3] = TAU  # exactly at tau: a pass
    b[3:5] = TAU
    return a, b


def _check_parts(result: stats.PairedComparison, a: np.ndarray, b: np.ndarray,
                 kw: dict[str, object], confidence: float, draws: int) -> None:
    """Assert each part of `result` equals its statistic computed directly."""
    resampled = {k: kw[k] for k in ("clusters", "strata", "resamples", "seed")}
    assert result.equivalence == stats.equivalence(a, b, margin=kw["margin"], **resampled)
    assert result.difference == stats.paired_bootstrap(a, b, confidence=confidence, **resampled)
    assert result.cliffs_delta == stats.cliffs_delta_paired(
        a, b, confidence=confidence, **resampled)
    assert result.sign_flip == stats.sign_flip_test(
        a, b, clusters=kw["clusters"], seed=kw["seed"], draws=draws)
    expected_flips = stats.flips(a >= TAU, b >= TAU)
    assert result.flips == expected_flips
    assert result.mcnemar == stats.mcnemar(expected_flips.n01, expected_flips.n10)
    assert (result.tau, result.seed, result.n_pairs) == (TAU, kw["seed"], a.size)


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_clustered_comparison_parts(confidence: float) -> None:
    a, b = _data(24, seed=1)
    tasks = np.arange(24) // 2  # 12 clusters: exact sign-flip over clusters, not over 24 pairs
    kw: dict[str, object] = {"clusters": tasks, "strata": tasks % 3, "margin": 0.05,
                             "resamples": 300, "seed": 9}
    result = stats.compare_paired(a, b, tau=TAU, confidence=confidence, draws=500, **kw)
    _check_parts(result, a, b, kw, confidence, 500)
    assert (result.n_units, result.unit) == (12, "cluster")
    assert result.sign_flip.exact and result.sign_flip.permutations == 2**12


def test_unclustered_comparison_parts_with_monte_carlo_sign_flip() -> None:
    a, b = _data(30, seed=2)
    kw: dict[str, object] = {"clusters": None, "strata": None, "margin": 0.2,
                             "resamples": 250, "seed": 4}
    result = stats.compare_paired(a, b, tau=TAU, confidence=0.9, draws=700, **kw)
    _check_parts(result, a, b, kw, 0.9, 700)
    assert (result.n_units, result.unit) == (30, "pair")
    assert not result.sign_flip.exact and result.sign_flip.permutations == 700
    assert result.flips.n01 + result.flips.n10 > 0


def test_flips_count_a_value_exactly_at_tau_as_a_pass() -> None:
    result = stats.compare_paired([0.5, 0.9, 0.2], [0.9, 0.5, 0.9], resamples=10)
    assert (result.flips.n01, result.flips.n10) == (2, 1)  # 0.9 passes at the default tau 0.9
    everyone = stats.compare_paired([0.0, 0.3], [0.0, 1.0], tau=0, resamples=10)
    assert (everyone.tau, everyone.flips.n01, everyone.flips.n10) == (0.0, 0, 0)


def test_default_seed_is_0() -> None:
    a, b = _data(10, seed=3)
    default = stats.compare_paired(a, b, resamples=20)
    assert default == stats.compare_paired(a, b, resamples=20, seed=0)
    assert default.seed == 0
    assert default.equivalence.interval != stats.compare_paired(
        a, b, resamples=20, seed=1).equivalence.interval


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tau": 1.5}, "tau must be in [0, 1], got 1.5"),
        ({"tau": -0.5}, "tau must be in [0, 1], got -0.5"),
        ({"margin": 0}, "margin must be > 0, got 0"),
    ],
)
def test_refusals_name_the_argument(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError) as info:
        stats.compare_paired([0.1, 0.2], [0.2, 0.3], **kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message
