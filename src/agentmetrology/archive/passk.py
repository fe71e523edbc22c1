"""pass^k from per-task counts: the chance that k trials drawn without replacement all succeed.

pass^k = mean over tasks of C(c, k) / C(n, k), with n trials and c successes per task. The ratio
is computed as the running product of (c − i)/(n − i) for i < k, so every factor lies in [0, 1]
and the whole curve k = 1..K costs time linear in the trials (binomial coefficients of 30,000
trials have thousands of digits). Floating point over at most k factors of relative error 2^-53
keeps published values (0.420 / 0.273 / ...) exact at any printed precision; the exact-fraction
version stays available for small inputs and tests.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction


def _check(counts: Sequence[tuple[int, int]]) -> None:
    if any(c < 0 or c > n for n, c in counts):
        raise ValueError("each task needs 0 <= successes <= trials")


def pass_hat_k_curve(counts: Sequence[tuple[int, int]], k_max: int) -> list[float | None]:
    """Return [pass^1, ..., pass^k_max]; entry k is None when some task has fewer than k trials.

    Time is O(tasks × k_max) with float factors in [0, 1]: no big integers, no fractions.
    """
    _check(counts)
    if k_max < 1:
        return []
    if not counts:
        return [None] * k_max
    shortest = min(n for n, _ in counts)
    defined = min(k_max, shortest)
    sums: list[list[float]] = [[] for _ in range(defined)]
    for n, c in counts:
        ratio = 1.0
        for i in range(defined):
            if ratio:  # once a factor is 0 (fewer successes than draws) it stays 0
                ratio *= (c - i) / (n - i)
            sums[i].append(ratio)
    tasks = len(counts)
    out: list[float | None] = [math.fsum(s) / tasks for s in sums]
    return out + [None] * (k_max - defined)


def pass_hat_k(counts: Sequence[tuple[int, int]], k: int) -> float | None:
    """Return pass^k as a float for (trials, successes) per task, or None if undefined."""
    if k < 1 or not counts:
        _check(counts)
        return None
    return pass_hat_k_curve(counts, k)[k - 1]


def pass_hat_k_fraction(counts: Sequence[tuple[int, int]], k: int) -> Fraction | None:
    """Return mean_t C(c_t, k)/C(n_t, k) exactly (a reference for small inputs), or None."""
    if k < 1 or not counts or any(n < k for n, _ in counts):
        return None
    _check(counts)
    total = sum((Fraction(math.comb(c, k), math.comb(n, k)) for n, c in counts), Fraction(0))
    return total / len(counts)
