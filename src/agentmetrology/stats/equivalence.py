"""Equivalence labels for a paired difference against a practical margin.

Precedence (documented in docs/stats.md): `equivalent` wins when the 90% interval lies inside
[-m, m], even if the 95% interval also excludes 0; such a difference is real but smaller than
anything the margin says matters, and `excludes_zero` stays True so it remains visible.
Otherwise `different` when the 95% interval excludes 0, else `inconclusive`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .bootstrap import DEFAULT_RESAMPLES, bootstrap_distributions, percentile_interval, reducer
from .cluster import Labels, unit_differences
from .results import EquivalenceResult, Interval
from .validate import check_count, check_finite

DEFAULT_MARGIN = 0.10


def equivalence_label(interval90: Interval, interval95: Interval, margin: float) -> str:
    """Return `equivalent`, `different` or `inconclusive` for two intervals and a margin."""
    m = _check_margin(margin)
    if -m <= interval90[0] and interval90[1] <= m:
        return "equivalent"
    if interval95[0] > 0.0 or interval95[1] < 0.0:
        return "different"
    return "inconclusive"


def _check_margin(margin: float) -> float:
    """Return a margin that is a finite number > 0."""
    m = check_finite(margin, "margin")
    if m <= 0.0:
        raise ValueError(f"margin must be > 0, got {margin!r}")
    return m


def equivalence(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    margin: float = DEFAULT_MARGIN,
    clusters: Labels | None = None,
    strata: Labels | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> EquivalenceResult:
    """Return the equivalence label of mean(b - a), with 90% and 95% intervals from one draw."""
    m = _check_margin(margin)
    check_count(resamples, "resamples")
    d, unit_strata = unit_differences(a, b, clusters, strata)
    (dist,) = bootstrap_distributions(
        d, [reducer("mean")], resamples=resamples, seed=seed, strata=unit_strata
    )
    ci90 = percentile_interval(dist, 0.90)
    ci95 = percentile_interval(dist, 0.95)
    unit = "pairs" if clusters is None else "clusters"
    return EquivalenceResult(
        label=equivalence_label(ci90, ci95, m),
        value=float(np.mean(d)),
        interval=ci95,
        interval90=ci90,
        margin=m,
        excludes_zero=ci95[0] > 0.0 or ci95[1] < 0.0,
        within_margin=-m <= ci90[0] and ci90[1] <= m,
        n=d.size,
        method=f"bootstrap equivalence over {unit}: 90% in [-m, m] else 95% excludes 0",
        seed=seed,
        resamples=resamples,
    )
