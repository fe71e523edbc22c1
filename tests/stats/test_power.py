"""Monte-Carlo power recomputed from its definition on the same seeded draws.

docs/stats.md: `simulations` datasets of n Normal(effect, sd) differences and as many under
the null, all in one draw (shape (2, simulations, n)); then, for the sign-flip test, `draws`
random sign vectors shared by all datasets. A dataset rejects when p <= alpha; the paired t
p-value is Student's, the sign-flip p is (1 + #{|sum(s*d)| >= |sum(d)|}) / (1 + draws) with a
relative tolerance of 1e-9 (of sum |d|) so that ties survive rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats._seeding import generator
from agentmetrology.stats.power import t_two_sided_p


def _data(effect: float, sd: float, n: int, sims: int, seed: int) -> np.ndarray:
    """Return the (2 * sims, n) simulated differences: alternative rows first, then null."""
    rng = generator(seed)
    z = rng.standard_normal((2, sims, n))
    return np.concatenate((effect + sd * z[0], sd * z[1]))


def _sign_flip_p(d: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """Return the Monte-Carlo sign-flip p-value of every row, one row at a time."""
    out = []
    for row in d:
        threshold = abs(row.sum()) - 1e-9 * np.abs(row).sum()
        extreme = sum(abs(float(row @ s)) >= threshold for s in signs)
        out.append((1 + extreme) / (1 + len(signs)))
    return np.array(out)


def _expected(p: np.ndarray, sims: int, alpha: float) -> tuple[float, float]:
    """Return (power, size): the rejection rates of the alternative and the null rows."""
    return (np.count_nonzero(p[:sims] <= alpha) / sims,
            np.count_nonzero(p[sims:] <= alpha) / sims)


@pytest.mark.parametrize(("n", "alpha"), [(2, 0.05), (3, 0.1), (12, 0.05)])
def test_t_power_is_the_rejection_rate_of_students_t(n: int, alpha: float) -> None:
    from scipy import stats as scipy_stats  # ~1.2 s: not at collection, in every worker
    result = stats.paired_power(0.4, 0.8, n, alpha=alpha, simulations=400, seed=5)
    data = _data(0.4, 0.8, n, 400, seed=5)
    p = scipy_stats.ttest_1samp(data, 0.0, axis=1).pvalue
    assert (result.value, result.size) == _expected(p, 400, alpha)
    k_alt, k_null = round(result.value * 400), round(result.size * 400)
    assert result.interval == stats.wilson(k_alt, 400).interval
    assert result.size_interval == stats.wilson(k_null, 400).interval


def test_sign_flip_power_by_definition_with_the_default_draws_and_seed() -> None:
    result = stats.paired_power(0.5, 1.0, 6, simulations=150, test="sign-flip")
    data = _data(0.5, 1.0, 6, 150, seed=0)
    rng = generator(0)
    rng.standard_normal((2, 150, 6))  # the data come first in the one stream
    signs = (2 * rng.integers(0, 2, size=(1000, 6)) - 1).astype(float)
    assert (result.value, result.size) == _expected(_sign_flip_p(data, signs), 150, 0.05)
    assert result.to_dict() | {"value": 0, "interval": 0, "size": 0, "size_interval": 0} == {
        "value": 0, "interval": 0, "size": 0, "size_interval": 0, "n": 6, "effect": 0.5,
        "sd": 1.0, "alpha": 0.05, "test": "sign-flip", "simulations": 150,
        "method": "monte-carlo power of the paired sign-flip test (wilson 95% intervals)",
        "seed": 0,
    }


def test_defaults_are_2000_simulations_of_the_t_test_at_seed_0() -> None:
    from scipy import stats as scipy_stats  # ~1.2 s: not at collection, in every worker
    result = stats.paired_power(0.3, 1.0, 5)
    assert (result.simulations, result.test, result.seed, result.alpha) == (2000, "t", 0, 0.05)
    assert result.method == "monte-carlo power of the paired t test (wilson 95% intervals)"
    p = scipy_stats.ttest_1samp(_data(0.3, 1.0, 5, 2000, seed=0), 0.0, axis=1).pvalue
    assert (result.value, result.size) == _expected(p, 2000, 0.05)


def test_sign_flip_p_values_count_ties_and_use_the_plus_one_rule() -> None:
    from agentmetrology.stats.power import _sign_flip_pvalues

    every = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], float)
    d = np.array([
        [0.1, 0.2, 0.3],  # only +-(1, 1, 1) reach 0.6 (float sums differ in the last bit)
        [0.0, 0.0, 0.0],  # all differences zero: every sign vector ties
        [10.0, 1e-9, 0.0],  # 10 - 1e-9 lies within 1e-9 * sum|d| of 10 + 1e-9: a tie
    ])
    assert _sign_flip_pvalues(d, every).tolist() == [3 / 9, 1.0, 1.0]
    # Each row's tolerance is its own: a large row in the same block changes nothing.
    both = _sign_flip_pvalues(np.array([[0.1, 0.2, 0.3], [1e9, 1e9, 1e9]]), every)
    assert both.tolist() == [3 / 9, 3 / 9]


def test_sign_flip_p_values_over_several_memory_chunks() -> None:
    from agentmetrology.stats.power import _sign_flip_pvalues

    # 4096 sign vectors (the 4 of n = 2, 1024 times each) hold 2^22 / 4096 = 1024 rows per
    # chunk, so 2100 rows take three chunks; every row's p is (1 + 1024 * hits) / 4097.
    signs = np.tile(np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], float), (1024, 1))
    d = generator(8).normal(size=(2100, 2))
    hits = np.array([sum(abs(row @ s) >= abs(row.sum()) - 1e-9 * np.abs(row).sum()
                         for s in signs[:4]) for row in d])
    assert np.array_equal(_sign_flip_pvalues(d, signs), (1 + 1024 * hits) / 4097)


@pytest.mark.parametrize("df", [1, 6, 10, 20, 21])
def test_t_p_values_are_float_probabilities_even_where_the_series_rounds_past_one(
    df: int,
) -> None:
    t = np.concatenate((np.logspace(-3, 17, 4001), [np.inf]))
    p = t_two_sided_p(t, df)
    assert p.dtype == np.float64
    assert p.min() >= 0.0 and p.max() <= 1.0
    assert t_two_sided_p(np.array([0.0]), df)[0] == 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"effect": float("nan")}, "effect must be a finite number, got nan"),
        ({"sd": float("inf")}, "sd must be a finite number, got inf"),
        ({"sd": -1.0}, "sd must be > 0, got -1.0"),
        ({"n": 1}, "n must be an integer >= 2, got 1"),
        ({"alpha": 0.0}, "alpha must be in (0, 1), got 0.0"),
        ({"simulations": 0}, "simulations must be an integer >= 1, got 0"),
        ({"draws": 0}, "draws must be an integer >= 1, got 0"),
        ({"test": "z"}, "test must be one of t, sign-flip, got 'z'"),
    ],
)
def test_refusals_name_the_argument(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"effect": 0.5, "sd": 1.0, "n": 10} | kwargs
    with pytest.raises(ValueError) as info:
        stats.paired_power(**args)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_a_p_value_equal_to_alpha_rejects() -> None:
    # 19 sign vectors: the smallest p is (1 + 0) / 20 = 0.05 = alpha, and p <= alpha rejects.
    result = stats.paired_power(5.0, 1.0, 10, test="sign-flip", draws=19, simulations=300,
                                seed=2)
    assert result.value == 1.0
    rng = generator(2)
    z = rng.standard_normal((2, 300, 10))
    signs = (2 * rng.integers(0, 2, size=(19, 10)) - 1).astype(float)
    null_p = _sign_flip_p(z[1], signs)
    assert result.size == np.count_nonzero(null_p <= 0.05) / 300 > 0


def test_the_default_1000_sign_vectors_resolve_p_to_1_in_1001() -> None:
    # With 1000 sign vectors the smallest sign-flip p is 1 / 1001: a huge effect reaches it in
    # every dataset, so alpha = 1/1001 rejects them all and any alpha below it rejects none.
    def power(alpha: float) -> float:
        return stats.paired_power(5.0, 1.0, 20, alpha=alpha, test="sign-flip", simulations=40,
                                  seed=1).value

    assert (power(1 / 1001), power(1 / 1001.5)) == (1.0, 0.0)


def test_exact_sign_flip_power_by_definition_over_all_2_to_the_n_sign_vectors() -> None:
    result = stats.paired_power(0.5, 1.0, 8, alpha=0.05, simulations=150, test="sign-flip",
                                exact=True)
    data = _data(0.5, 1.0, 8, 150, seed=0)
    every = np.array([[1.0 if (k >> j) & 1 else -1.0 for j in range(8)] for k in range(256)])
    # Exact: the share of all 256 sign vectors as extreme, the observed one among them.
    p = np.array([sum(abs(float(row @ s)) >= abs(row.sum()) - 1e-9 * np.abs(row).sum()
                      for s in every) / 256 for row in data])
    assert (result.value, result.size) == _expected(p, 150, 0.05)
    assert result.method == "monte-carlo power of the paired exact sign-flip test (wilson 95% " \
                            "intervals)"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"n": 21}, "exact needs the sign-flip test and n <= 20, got 'sign-flip' with n = 21"),
    ({"test": "t"}, "exact needs the sign-flip test and n <= 20, got 't' with n = 10"),
])
def test_exact_power_is_refused_without_an_enumerable_sign_flip_test(
    kwargs: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {"effect": 0.5, "sd": 1.0, "n": 10, "test": "sign-flip",
                               "exact": True} | kwargs
    with pytest.raises(ValueError) as info:
        stats.paired_power(**args)  # type: ignore[arg-type]
    assert str(info.value) == message
