"""pass^k from per-task counts: the chance that k trials drawn without replacement all succeed.

pass^k = mean over tasks of C(c, k) / C(n, k), with n trials and c successes per task. Computed
with exact fractions so that published values (0.420 / 0.273 / ...) reproduce to the last digit.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import comb


def pass_hat_k_fraction(counts: Sequence[tuple[int, int]], k: int) -> Fraction | None:
    """Return mean_t C(c_t, k)/C(n_t, k) exactly for (n_t, c_t) pairs, or None if undefined."""
    if k < 1 or not counts or any(n < k for n, _ in counts):
        return None
    if any(c < 0 or c > n for n, c in counts):
        raise ValueError("each task needs 0 <= successes <= trials")
    total = sum((Fraction(comb(c, k), comb(n, k)) for n, c in counts), Fraction(0))
    return total / len(counts)


def pass_hat_k(counts: Sequence[tuple[int, int]], k: int) -> float | None:
    """Return pass^k as a float for (trials, successes) per task, or None if undefined."""
    value = pass_hat_k_fraction(counts, k)
    return None if value is None else float(value)
