"""Design tools: Monte-Carlo power (size near alpha), the t p-values, two-factor eta squared."""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats._seeding import generator
from agentmetrology.stats.power import t_two_sided_p


@pytest.mark.parametrize("df", [1, 2, 3, 4, 7, 10, 29, 120])
def test_t_p_values_match_scipy(df: int) -> None:
    from scipy import stats as scipy_stats  # ~1.2 s: not at collection, in every worker
    t = np.array([0.0, 0.3, 1.0, 2.0, 2.5, -3.0, 8.0])
    expected = 2 * scipy_stats.t.sf(np.abs(t), df)
    assert np.allclose(t_two_sided_p(t, df), expected, atol=1e-12)


@pytest.mark.parametrize("test", ["t", "sign-flip"])
def test_power_near_one_for_a_large_effect_and_size_near_alpha(test: str) -> None:
    result = stats.paired_power(1.5, 1.0, 20, test=test, seed=1)
    assert result.value >= 0.99
    assert 0.03 <= result.size <= 0.07
    assert result.interval[0] <= result.value <= result.interval[1]


def test_power_matches_theory_for_a_medium_effect() -> None:
    from scipy import stats as scipy_stats  # ~1.2 s: not at collection, in every worker
    # Paired t, d = 0.5, n = 30, alpha 0.05: the noncentral-t power is about 0.75.
    df, nc = 29, 0.5 * np.sqrt(30)
    crit = scipy_stats.t.ppf(0.975, df)
    theory = scipy_stats.nct.sf(crit, df, nc) + scipy_stats.nct.cdf(-crit, df, nc)
    result = stats.paired_power(0.5, 1.0, 30, simulations=4000, seed=2)
    assert result.value == pytest.approx(theory, abs=0.03)


def test_power_is_seeded() -> None:
    first = stats.paired_power(0.3, 1.0, 15, seed=3)
    assert first == stats.paired_power(0.3, 1.0, 15, seed=3)
    assert first.value != stats.paired_power(0.3, 1.0, 15, seed=4).value


def _anova_by_regression(y: np.ndarray) -> dict[str, float]:
    """Sums of squares as RSS reductions of nested least-squares fits (an independent route)."""
    t, i, j = y.shape
    grid = np.stack(np.meshgrid(np.arange(t), np.arange(i), np.arange(j), indexing="ij"), -1)
    cells = grid.reshape(-1, 3)
    target = y.reshape(-1)

    def dummies(codes: np.ndarray, levels: int) -> np.ndarray:
        return np.eye(levels)[codes][:, 1:]

    task, a, b = (dummies(cells[:, k], n) for k, n in enumerate((t, i, j)))
    ab = np.einsum("ni,nj->nij", a, b).reshape(len(target), -1)
    ones = np.ones((len(target), 1))

    def rss(*blocks: np.ndarray) -> float:
        x = np.hstack((ones, *blocks))
        fitted = x @ np.linalg.lstsq(x, target, rcond=None)[0]
        return float(np.sum((target - fitted) ** 2))

    base = rss()
    return {
        "task": base - rss(task),
        "a": rss(task) - rss(task, a),
        "b": rss(task, a) - rss(task, a, b),
        "ab": rss(task, a, b) - rss(task, a, b, ab),
        "residual": rss(task, a, b, ab),
    }


def test_eta_squared_matches_nested_regression() -> None:
    rng = generator(31)
    y = rng.normal(size=(8, 3, 2))
    y += np.array([0.0, 0.5, 1.5])[None, :, None] + rng.normal(size=(8, 1, 1))
    result = stats.eta_squared(y)
    reference = _anova_by_regression(y)
    for key, value in reference.items():
        assert result.sums_of_squares[key] == pytest.approx(value, abs=1e-9)
    shares = [v for v in result.shares.values() if v is not None]
    assert sum(shares) == pytest.approx(1.0)
    assert result.df == {"a": 2, "b": 1, "ab": 2, "task": 7, "residual": 35}


def test_eta_squared_pure_factor_and_constant_table() -> None:
    y = np.zeros((4, 2, 3)) + np.array([0.0, 1.0])[None, :, None]
    assert stats.eta_squared(y).shares["a"] == pytest.approx(1.0)
    assert stats.eta_squared(np.ones((3, 2, 2))).shares["a"] is None
