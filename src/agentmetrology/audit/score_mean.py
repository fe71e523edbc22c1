"""The mean of a scorer's scores, finite whenever the scores are.

A user's scorer may return any finite number up to MAX_SCORE in size (scorer_worker.py). Summed,
such numbers overflow to inf (or `fsum` raises), and an inf cannot be written to audit.json:
the audit ended in a traceback. The mean of finite numbers is never larger than the largest of
them, so it is computed again on scaled-down values whenever the plain formula overflows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from statistics import fmean


def _sum_over_n(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def finite_mean(values: Sequence[float],
                plain: Callable[[Sequence[float]], float] = fmean) -> float:
    """Return `plain(values)` (the formula a stage always used, so its numbers are unchanged),
    or, where that overflows, the same mean summed over values divided by a power of two."""
    try:
        mean = plain(values)
    except OverflowError:
        mean = math.inf
    if math.isfinite(mean):
        return mean
    # A power of two at least n: each value scales exactly, and the scaled sum (at most n times
    # the largest value over 2**k) stays within the float range.
    scale = 2.0 ** math.ceil(math.log2(len(values)))
    return math.fsum(v / scale for v in values) / len(values) * scale


def plain_mean(values: Sequence[float]) -> float:
    """Return the mean of finite scores as `sum / n`, finite where that sum overflows."""
    return finite_mean(values, _sum_over_n)
