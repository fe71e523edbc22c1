"""Paired comparisons of A and B on the same seeds or tasks; every difference is d = b - a."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ._seeding import check_seed, generator
from .bootstrap import DEFAULT_RESAMPLES, check_draw
from .cluster import Labels, mean_interval, resampling_name, unit_differences, unit_note
from .results import Estimate, HolmResult, TestResult
from .validate import FloatArray, check_confidence, check_count, check_fraction

EXACT_LIMIT = 20  # enumerate all 2^n sign vectors up to n = 20 pairs (2^20 sums)
DEFAULT_DRAWS = 100_000
_CHUNK_ELEMENTS = 1 << 22
_TABLE_BYTES = 128  # bytes of signs looked up at a time: 128 x 256 doubles, 256 KiB


def paired_bootstrap(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    clusters: Labels | None = None,
    strata: Labels | None = None,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Estimate:
    """Return mean(b - a) with a percentile interval from resampling pairs (or clusters); none
    below MIN_UNITS units (`interval_note` says why)."""
    check_confidence(confidence)
    check_draw(resamples, seed)
    d, unit_strata = unit_differences(a, b, clusters, strata)
    note = unit_note(clusters, d.size, unit_strata)
    return Estimate(
        value=float(d.mean()),
        interval=mean_interval(d, unit_strata, note, confidence, resamples, seed),
        n=d.size,
        method=f"{resampling_name(clusters, strata)} of mean(b - a)",
        seed=seed,
        confidence=confidence,
        resamples=resamples,
        interval_note=note,
    )


def _signed_subset_sums(d: FloatArray) -> FloatArray:
    """Return all 2^len(d) sums of +/-d_j, built by doubling (a loop over elements only)."""
    sums = np.zeros(1)
    for v in d:
        sums = np.concatenate((sums - v, sums + v))
    return sums


def _exact_extreme(d: FloatArray, threshold: float) -> int:
    """Count sign vectors with |sum| >= threshold by meeting in the middle of two halves."""
    half = d.size // 2
    low, high = _signed_subset_sums(d[:half]), _signed_subset_sums(d[half:])
    # Every full sum is low_i + high_j: one outer sum gives all 2^n of them (at most 2^20).
    return int(np.count_nonzero(np.abs(low[:, np.newaxis] + high[np.newaxis, :]) >= threshold))


def _byte_tables(d: FloatArray) -> FloatArray:
    """Return T[j, v] = sum of d[8j + b] over the set bits b of byte value v."""
    nbytes = (d.size + 7) // 8
    padded = np.zeros(nbytes * 8)
    padded[: d.size] = d
    bits = (np.arange(256)[:, np.newaxis] >> np.arange(8)) & 1  # (256, 8), bit b of v
    return (bits @ padded.reshape(nbytes, 8).T).T  # (nbytes, 256)


def _monte_carlo_extreme(d: FloatArray, threshold: float, draws: int, seed: int) -> int:
    """Count random sign vectors with |sum| >= threshold; the signs are one packed-bit stream."""
    nbytes = (d.size + 7) // 8
    rng = generator(seed)
    flat = _byte_tables(d).ravel()  # T[j, v] is flat[256 j + v]
    offsets = np.arange(nbytes) * 256
    total = float(d.sum())
    # Bit b of byte j is the sign of d[8j + b]. The bytes are drawn a block of rows at a time:
    # drawn at once they took draws * n / 8 bytes (6.25 GB for 500,000 pairs). numpy draws
    # uint8 four to a 32-bit word, so blocks of a multiple of 4 rows continue the one stream
    # exactly and the p-value is the same as from a single draw.
    rows = max(4, _CHUNK_ELEMENTS // nbytes // 4 * 4)
    extreme = 0
    # One buffer for every block: a fresh one (33 MB at 100,000 pairs) page-faulted every time.
    buffer = np.empty((min(rows, draws), nbytes))
    for start in range(0, draws, rows):
        packed = rng.integers(0, 256, size=(min(rows, draws - start), nbytes), dtype=np.uint8)
        # Byte lookups replace 8 multiply-adds each: sum over +1 signs, then signed = 2*pos - total.
        looked_up = buffer[: packed.shape[0]]
        for first in range(0, nbytes, _TABLE_BYTES):
            # A few bytes' tables at a time stay in cache; every row swept all of them (25 MB
            # at 100,000 pairs) and missed it at nearly every lookup, 6x slower. The same
            # values land in the same places, so the row sums are the same to the last bit.
            cols = slice(first, first + _TABLE_BYTES)
            looked_up[:, cols] = flat[packed[:, cols] + offsets[cols]]
        positive = looked_up.sum(axis=1)
        extreme += int(np.count_nonzero(np.abs(2.0 * positive - total) >= threshold))
    return extreme


def sign_flip_test(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    clusters: Labels | None = None,
    seed: int = 0,
    draws: int = DEFAULT_DRAWS,
    exact_limit: int = EXACT_LIMIT,
) -> TestResult:
    """Return the two-sided sign-flip test of mean(b - a) = 0 over units (exact for n <= 20).

    With `clusters`, a unit is a cluster's mean difference and whole clusters flip sign.
    """
    check_seed(seed)
    check_count(draws, "draws")
    limit = check_count(exact_limit, "exact_limit", minimum=0)
    if limit > EXACT_LIMIT:
        raise ValueError(f"exact_limit must be <= {EXACT_LIMIT}, got {exact_limit!r}")
    d, _ = unit_differences(a, b, clusters)  # zero differences stay: they add 0 under any sign
    observed = float(d.sum())
    # A relative tolerance so that permutations tying the observed |sum| count despite rounding.
    threshold = abs(observed) - 1e-9 * float(np.abs(d).sum())
    if d.size <= limit:
        total = 1 << d.size
        p = _exact_extreme(d, threshold) / total
        return TestResult(
            value=float(d.mean()),
            p_value=p,
            n=d.size,
            method="sign-flip permutation (exact)",
            seed=None,
            exact=True,
            permutations=total,
        )
    extreme = _monte_carlo_extreme(d, threshold, draws, seed)
    return TestResult(
        value=float(d.mean()),
        p_value=(1 + extreme) / (1 + draws),
        n=d.size,
        method="sign-flip permutation (Monte-Carlo)",
        seed=seed,
        exact=False,
        permutations=draws,
    )


def cliffs_delta_paired(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    clusters: Labels | None = None,
    strata: Labels | None = None,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Estimate:
    """Return [#(d>0) - #(d<0)]/n over units (pairs or clusters), with a bootstrap interval
    (none below MIN_UNITS units: `interval_note` says why)."""
    check_confidence(confidence)
    check_draw(resamples, seed)
    d, unit_strata = unit_differences(a, b, clusters, strata)
    signs = np.sign(d)
    note = unit_note(clusters, signs.size, unit_strata)
    return Estimate(
        value=float(signs.mean()),
        interval=mean_interval(signs, unit_strata, note, confidence, resamples, seed),
        n=signs.size,
        method=f"paired cliff's delta, {resampling_name(clusters, strata)}",
        seed=seed,
        confidence=confidence,
        resamples=resamples,
        interval_note=note,
    )


def _comb_run(n: int, start: int, stop: int) -> tuple[int, int]:
    """Return the sum of C(n, i) for start <= i < stop, and C(n, stop), each term from the one
    before."""
    total, term = 0, math.comb(n, start)
    for i in range(start, stop):
        total += term
        # Exact: C(n, i + 1) = C(n, i) (n - i) / (i + 1). One math.comb per term cost O(n)
        # big-integer work each, so 100,000 pairs took tens of minutes.
        term = term * (n - i) // (i + 1)
    return total, term


def _lower_tail_count(k: int, n: int) -> int:
    """Return the sum of C(n, i) for i <= k (k <= n/2), summing the fewer terms."""
    if 2 * k >= n:  # k = n/2: half of all 2^n, plus half the middle term
        return ((1 << n) + math.comb(n, k)) // 2
    below_middle = (n - 1) // 2  # the largest i < n/2
    if k <= below_middle - k:
        return _comb_run(n, 0, k + 1)[0]
    # By symmetry the terms below the middle sum to (2^n - C(n, n/2) for even n) / 2, so the
    # tail is that minus the terms above k: near the middle (the usual case) these are few.
    above, middle = _comb_run(n, k + 1, below_middle + 1)
    return ((1 << n) - (middle if n % 2 == 0 else 0)) // 2 - above


def _binomial_two_sided(k_low: int, n: int) -> float:
    """Return min(1, 2 P(X <= k_low)) for X ~ Binomial(n, 1/2), in exact arithmetic."""
    twice_tail = 2 * _lower_tail_count(k_low, n)
    # int / int is correctly rounded, as float(Fraction) is (Fraction.__float__ divides the same
    # way), without reducing a fraction of n-bit integers by their gcd.
    return 1.0 if twice_tail >= 1 << n else twice_tail / (1 << n)


def sign_test(n_up: int, n_down: int) -> TestResult:
    """Return the exact two-sided sign test of n_up vs n_down (ties already excluded)."""
    up = check_count(n_up, "n_up", minimum=0)
    down = check_count(n_down, "n_down", minimum=0)
    n = up + down
    p = 1.0 if n == 0 else _binomial_two_sided(min(up, down), n)
    return TestResult(value=float(up), p_value=p, n=n, method="exact two-sided sign test")


def mcnemar(n01: int, n10: int) -> TestResult:
    """Return the exact McNemar test on the discordant pairs (n01 fail->pass, n10 pass->fail)."""
    a = check_count(n01, "n01", minimum=0)
    b = check_count(n10, "n10", minimum=0)
    n = a + b
    p = 1.0 if n == 0 else _binomial_two_sided(min(a, b), n)
    return TestResult(value=float(a), p_value=p, n=n, method="exact mcnemar (binomial)")


def holm(p_values: Sequence[float] | npt.ArrayLike, alpha: float = 0.05) -> HolmResult:
    """Return Holm step-down adjusted p-values in input order, and which reject at `alpha`."""
    p = np.asarray(p_values, dtype=np.float64).ravel()
    if p.size == 0:
        raise ValueError("p_values must not be empty")
    if not (np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()):
        raise ValueError("p_values must all lie in [0, 1]")
    level = check_fraction(alpha, "alpha", allow_zero=False, allow_one=False)
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = (m - np.arange(m)) * p[order]
    # Step-down: an adjusted p-value may never be smaller than the one before it.
    adjusted_sorted = np.minimum(1.0, np.maximum.accumulate(scaled))
    adjusted = np.empty(m)
    adjusted[order] = adjusted_sorted
    return HolmResult(
        adjusted=tuple(float(v) for v in adjusted),
        p_values=tuple(float(v) for v in p),
        rejected=tuple(bool(v <= level) for v in adjusted),
        alpha=level,
        n=m,
    )
