"""Closed-form intervals for proportions."""

from __future__ import annotations

import math
from statistics import NormalDist

from .results import Estimate
from .validate import check_confidence, check_count


def wilson(k: int, n: int, confidence: float = 0.95) -> Estimate:
    """Return k/n with its Wilson score interval at `confidence`."""
    n = check_count(n, "n")
    k = check_count(k, "k", minimum=0)
    if k > n:
        raise ValueError(f"k must be <= n, got k={k}, n={n}")
    c = check_confidence(confidence)
    z = NormalDist().inv_cdf(0.5 + c / 2.0)
    p = k / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At k = 0 (k = n) the exact lower (upper) bound is 0 (1); float arithmetic misses by ulps.
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return Estimate(value=p, interval=(lo, hi), n=n, method="wilson score interval", confidence=c)
