"""Monte-Carlo power of the paired design, with the size under the null reported beside it."""

from __future__ import annotations

import math

import numpy as np

from ._seeding import generator
from .intervals import wilson
from .paired import EXACT_LIMIT, _signed_subset_sums
from .results import PowerResult
from .validate import FloatArray, check_count, check_finite, check_fraction

TESTS = ("t", "sign-flip")
_CHUNK_ELEMENTS = 1 << 22  # permuted sums held at once by the sign-flip power simulation


def t_two_sided_p(t: FloatArray, df: int) -> FloatArray:
    """Return two-sided Student-t p-values for integer df (exact finite series, A&S 26.7.3-4)."""
    theta = np.arctan(np.abs(t) / math.sqrt(df))
    s, c2 = np.sin(theta), np.cos(theta) ** 2
    if df % 2 == 0:
        term = np.ones_like(theta)
        total = term.copy()
        for k in range(1, (df - 2) // 2 + 1):
            term = term * c2 * (2 * k - 1) / (2 * k)
            total += term
        inside = s * total
    else:
        total = np.zeros_like(theta)
        if df > 1:
            term = np.cos(theta)
            total = term.copy()
            for k in range(1, (df - 3) // 2 + 1):
                term = term * c2 * (2 * k) / (2 * k + 1)
                total += term
        inside = (2.0 / math.pi) * (theta + s * total)
    return np.clip(1.0 - inside, 0.0, 1.0)


def _t_pvalues(d: FloatArray) -> FloatArray:
    """Return paired t-test p-values for each row of a (simulations, n) difference matrix."""
    n = d.shape[1]
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / math.sqrt(n))
    return t_two_sided_p(t, n - 1)


def _sign_flip_pvalues(d: FloatArray, signs: FloatArray) -> FloatArray:
    """Return Monte-Carlo sign-flip p-values per row, all rows sharing one set of sign vectors."""
    p = np.empty(d.shape[0])
    rows = max(1, _CHUNK_ELEMENTS // signs.shape[0])
    for start in range(0, d.shape[0], rows):  # chunks of simulations bound the memory
        block = d[start : start + rows]
        threshold = np.abs(block.sum(axis=1)) - 1e-9 * np.abs(block).sum(axis=1)
        permuted = np.abs(block @ signs.T)  # (rows, draws)
        extreme = np.count_nonzero(permuted >= threshold[:, np.newaxis], axis=1)
        p[start : start + rows] = (1.0 + extreme) / (1.0 + signs.shape[0])
    return p


def _exact_sign_flip_pvalues(d: FloatArray) -> FloatArray:
    """Return exact sign-flip p-values per row: the share of all 2^n sign vectors as extreme."""
    n = d.shape[1]
    half = n // 2
    p = np.empty(d.shape[0])
    for i, row in enumerate(d):
        # Meet in the middle: a full sum is low + high, so |low + high| >= t is counted by two
        # binary searches of the sorted high halves for each low half (2^(n/2) each, not 2^n).
        low, high = _signed_subset_sums(row[:half]), np.sort(_signed_subset_sums(row[half:]))
        t = abs(float(row.sum())) - 1e-9 * float(np.abs(row).sum())
        if t <= 0.0:  # every sum is as extreme as an all-zero observed one
            p[i] = 1.0
            continue
        above = high.size - np.searchsorted(high, t - low, side="left")
        below = np.searchsorted(high, -t - low, side="right")
        p[i] = float(above.sum() + below.sum()) / (1 << n)
    return p


def paired_power(
    effect: float,
    sd: float,
    n: int,
    *,
    alpha: float = 0.05,
    simulations: int = 2000,
    test: str = "t",
    draws: int = 1000,
    seed: int = 0,
    exact: bool = False,
) -> PowerResult:
    """Return the rejection rate at `effect` (power) and at effect 0 (size) of a paired test.

    Differences are simulated as Normal(effect, sd) for n pairs; `test` is "t" (paired t) or
    "sign-flip" (Monte-Carlo sign-flip with `draws` sign vectors shared by all simulations, or
    with `exact` every one of the 2^n, n <= 20, as the exact sign-flip test does).
    """
    mu = check_finite(effect, "effect")
    sigma = check_finite(sd, "sd")
    if sigma <= 0.0:
        raise ValueError(f"sd must be > 0, got {sd!r}")
    pairs = check_count(n, "n", minimum=2)
    level = check_fraction(alpha, "alpha", allow_zero=False, allow_one=False)
    sims = check_count(simulations, "simulations")
    check_count(draws, "draws")
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, got {test!r}")
    if exact and (test != "sign-flip" or pairs > EXACT_LIMIT):
        raise ValueError(f"exact needs the sign-flip test and n <= {EXACT_LIMIT}, got {test!r} "
                         f"with n = {pairs}")
    rng = generator(seed)
    z = rng.standard_normal((2, sims, pairs))  # one draw: alternative and null data together
    data = sigma * z
    data[0] += mu
    if test == "t":
        p = _t_pvalues(data.reshape(2 * sims, pairs))
    elif exact:
        p = _exact_sign_flip_pvalues(data.reshape(2 * sims, pairs))
    else:
        signs = (2 * rng.integers(0, 2, size=(draws, pairs)) - 1).astype(np.float64)
        p = _sign_flip_pvalues(data.reshape(2 * sims, pairs), signs)
    hits_alt = int(np.count_nonzero(p[:sims] <= level))
    hits_null = int(np.count_nonzero(p[sims:] <= level))
    power, size = wilson(hits_alt, sims), wilson(hits_null, sims)
    assert power.interval is not None and size.interval is not None
    return PowerResult(
        value=hits_alt / sims,
        interval=power.interval,
        size=hits_null / sims,
        size_interval=size.interval,
        n=pairs,
        effect=mu,
        sd=sigma,
        alpha=level,
        test=test,
        simulations=sims,
        method=f"monte-carlo power of the paired {'exact ' if exact else ''}{test} test "
               "(wilson 95% intervals)",
        seed=seed,
    )
