"""Paired tests: sign-flip permutation, paired bootstrap, Cliff's delta, sign test, McNemar."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats._seeding import generator


def _brute_force_p(d: np.ndarray) -> float:
    observed = abs(d.sum())
    hits = 0
    for signs in itertools.product((-1.0, 1.0), repeat=d.size):
        hits += abs(float(np.dot(signs, d))) >= observed - 1e-12
    return hits / 2**d.size


def test_exact_sign_flip_matches_brute_force_enumeration() -> None:
    rng = generator(11)
    for n in (1, 2, 5, 9):
        a = rng.normal(size=n)
        b = a + rng.normal(0.3, 1.0, size=n)
        result = stats.sign_flip_test(a, b)
        assert result.exact and result.permutations == 2**n
        assert result.p_value == pytest.approx(_brute_force_p(b - a), abs=1e-12)


def test_exact_sign_flip_keeps_zero_differences() -> None:
    # Two zero differences double the number of sign vectors but not the p-value.
    base = stats.sign_flip_test([0, 0, 0], [1.0, 2.0, 0.5])
    padded = stats.sign_flip_test([0, 0, 0, 1, 1], [1.0, 2.0, 0.5, 1, 1])
    assert padded.n == 5
    assert padded.p_value == base.p_value == 0.25


def test_all_zero_differences_give_p_one() -> None:
    assert stats.sign_flip_test([1, 2, 3], [1, 2, 3]).p_value == 1.0


def test_exact_enumeration_up_to_twenty_pairs() -> None:
    rng = generator(12)
    a = rng.normal(size=20)
    result = stats.sign_flip_test(a, a + 0.4)
    assert result.exact and result.permutations == 2**20
    assert result.p_value < 0.001


def test_monte_carlo_above_the_limit_is_seeded_and_close_to_exact() -> None:
    rng = generator(13)
    a = rng.normal(size=14)
    b = a + rng.normal(0.2, 1.0, size=14)
    exact = stats.sign_flip_test(a, b).p_value
    mc = stats.sign_flip_test(a, b, exact_limit=0, seed=4)
    assert not mc.exact and mc.seed == 4
    assert mc.p_value == pytest.approx(exact, abs=0.01)
    assert stats.sign_flip_test(a, b, exact_limit=0, seed=4).p_value == mc.p_value
    assert stats.sign_flip_test(a, b, exact_limit=0, seed=5).p_value != mc.p_value


def test_monte_carlo_p_value_uses_plus_one_rule() -> None:
    a = np.zeros(40)
    b = np.full(40, 1.0)  # every random sign vector is less extreme than the data
    result = stats.sign_flip_test(a, b, draws=999)
    assert result.p_value == pytest.approx(1 / 1000)


def test_sign_flip_with_clusters_flips_cluster_means() -> None:
    a = [0, 0, 0, 0, 0, 0]
    b = [1, 3, 2, 2, -1, -1]
    by_cluster = stats.sign_flip_test(a, b, clusters=["x", "x", "y", "y", "z", "z"])
    assert by_cluster.n == 3
    assert by_cluster.p_value == stats.sign_flip_test([0, 0, 0], [2, 2, -1]).p_value


def test_paired_bootstrap_is_b_minus_a() -> None:
    est = stats.paired_bootstrap([0.1, 0.2, 0.3], [0.4, 0.5, 0.6], seed=1)
    assert est.value == pytest.approx(0.3)
    assert est.interval is not None
    assert est.interval[0] == pytest.approx(0.3) and est.interval[1] == pytest.approx(0.3)


def test_cliffs_delta_paired() -> None:
    est = stats.cliffs_delta_paired([0, 0, 0, 0, 0], [1, 1, 1, -1, 0], seed=0)
    assert est.value == pytest.approx((3 - 1) / 5)
    assert est.interval is not None and -1.0 <= est.interval[0] <= est.interval[1] <= 1.0
    again = stats.cliffs_delta_paired([0, 0, 0, 0, 0], [1, 1, 1, -1, 0], seed=0)
    assert again.interval == est.interval


def test_mcnemar_exact() -> None:
    assert stats.mcnemar(4, 1).p_value == stats.sign_test(4, 1).p_value
    assert stats.mcnemar(0, 0).p_value == 1.0
    assert round(stats.mcnemar(10, 2).p_value, 4) == 0.0386


def test_holm_handles_ties_and_caps_at_one() -> None:
    result = stats.holm([0.04, 0.04, 0.9])
    assert result.adjusted == (pytest.approx(0.12), pytest.approx(0.12), 0.9)
    assert stats.holm([0.6, 0.7]).adjusted == (1.0, 1.0)
