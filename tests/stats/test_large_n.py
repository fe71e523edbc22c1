"""Large inputs: the faster computations give the numbers the straightforward ones gave.

`agm stats compare` of 100,000 pairs did not finish in 17 minutes: the exact sign test summed
C(n, i) for i <= k with one math.comb per term. These tests pin the results against the
straightforward computations (copied here as references), never against a clock.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import numpy.typing as npt
import pytest

from agentmetrology import stats
from agentmetrology.stats._seeding import generator


def _binomial_reference(k_low: int, n: int) -> float:
    """The sign test's p as first written: min(1, 2 P(X <= k_low)), one math.comb per term."""
    tail = Fraction(sum(math.comb(n, i) for i in range(k_low + 1)), 1 << n)
    return float(min(Fraction(1), 2 * tail))


def test_sign_test_equals_the_term_by_term_sum() -> None:
    cases = [(up, n - up) for n in range(1, 70) for up in range(n + 1)]
    rnd = random.Random(43)
    cases += [(up, n - up) for n in (rnd.randint(70, 1500) for _ in range(40))
              for up in (rnd.randint(0, n),)]
    cases += [(977, 977), (978, 977), (0, 1501), (700, 800), (1400, 100)]
    for up, down in cases:
        expected = _binomial_reference(min(up, down), up + down)
        assert stats.sign_test(up, down).p_value == expected, (up, down)
        assert stats.mcnemar(down, up).p_value == expected, (up, down)


def test_sign_test_sums_terms_without_one_comb_each(monkeypatch: pytest.MonkeyPatch) -> None:
    # 1362 up / 1092 down called math.comb 1093 times (5362 / 4592 took 4 s, and 100,000 pairs
    # tens of minutes); each term now comes from the one before, with at most one math.comb.
    calls = []
    comb = math.comb

    def counting(n: int, k: int) -> int:
        calls.append((n, k))
        return comb(n, k)

    monkeypatch.setattr(math, "comb", counting)
    p = stats.sign_test(1362, 1092).p_value
    monkeypatch.undo()
    assert p == _binomial_reference(1092, 2454)
    assert len(calls) <= 1


def _sign_flip_reference(d: npt.NDArray[np.float64], draws: int, seed: int) -> float:
    """The Monte-Carlo p as first written: each row of draws looked up across all its bytes."""
    nbytes = (d.size + 7) // 8
    padded = np.zeros(nbytes * 8)
    padded[: d.size] = d
    bits = (np.arange(256)[:, np.newaxis] >> np.arange(8)) & 1
    tables = (bits @ padded.reshape(nbytes, 8).T).T
    threshold = abs(float(d.sum())) - 1e-9 * float(np.abs(d).sum())
    packed = generator(seed).integers(0, 256, size=(draws, nbytes), dtype=np.uint8)
    positive = tables[np.arange(nbytes), packed].sum(axis=1)
    extreme = int(np.count_nonzero(np.abs(2.0 * positive - float(d.sum())) >= threshold))
    return (1 + extreme) / (1 + draws)


@pytest.mark.parametrize(("n", "draws", "seed"), [
    (21, 3000, 0), (300, 2000, 5), (1025, 1500, 2), (5000, 400, 9), (20_003, 120, 1)])
def test_monte_carlo_sign_flip_equals_the_row_by_row_lookup(n: int, draws: int,
                                                            seed: int) -> None:
    rng = generator(n)
    real = rng.normal(0.01, 0.3, size=n)
    # Differences of 0/1 outcomes: sums tie the observed one often, so a last-bit change in a
    # row sum would change the count.
    binary = (rng.random(n) < 0.55).astype(float) - (rng.random(n) < 0.5).astype(float)
    for d in (real, binary):
        result = stats.sign_flip_test(np.zeros(n), d, draws=draws, seed=seed)
        assert result.p_value == _sign_flip_reference(d, draws, seed)
        assert (result.method, result.permutations) == (
            "sign-flip permutation (Monte-Carlo)", draws)


def _bootstrap_reference(values: npt.NDArray[np.float64], k: int, resamples: int,
                         seed: int) -> tuple[npt.NDArray[np.float64], ...]:
    """Mean and CVaR bootstrap distributions as first written: int64 indices, and CVaR by
    partitioning each (strided) column of the (n, resamples) matrix."""
    rng = generator(seed)
    n = values.size
    block = max(1, (1 << 23) // n)
    means, cvars = np.empty(resamples), np.empty(resamples)
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        m = values[rng.integers(0, n, size=(n, stop - start))]
        means[start:stop] = m.sum(axis=0) / n
        cvars[start:stop] = (m.min(axis=0) if k == 1 else
                             np.partition(m, k - 1, axis=0)[:k].sum(axis=0) / k)
    return means, cvars


@pytest.mark.parametrize(("n", "resamples", "seed"), [
    (3, 2000, 0), (10, 2000, 4), (97, 500, 1), (2047, 300, 2), (2048, 300, 3),
    (6000, 200, 0), (60_000, 150, 5)])
def test_bootstrap_intervals_equal_the_first_computation(n: int, resamples: int,
                                                         seed: int) -> None:
    rng = generator(1000 + n)
    for values in (np.round(rng.random(n), 3), (rng.random(n) < 0.6).astype(float),
                   rng.normal(0.0, 1e-3, n)):
        k = stats.bootstrap.cvar_count(0.2, n)
        means, cvars = _bootstrap_reference(values, k, resamples, seed)
        given = values.copy()
        mean, cvar = stats.bootstrap_cis(values, ["mean", "cvar"], resamples=resamples,
                                         seed=seed)
        # The point CVaR partitions the values too: a copy of them, never the caller's array.
        assert np.array_equal(values, given)
        assert cvar.value == float(np.partition(given, k - 1)[:k].sum() / k)
        assert mean.interval == stats.bootstrap.percentile_interval(means, 0.95)
        assert cvar.interval == stats.bootstrap.percentile_interval(cvars, 0.95)
        # Differences are resampled the same way: the paired interval is the mean's.
        paired = stats.paired_bootstrap(np.zeros(n), values, resamples=resamples, seed=seed)
        assert paired.interval == mean.interval
