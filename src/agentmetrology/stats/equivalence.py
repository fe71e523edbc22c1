"""Equivalence labels for a paired difference against a practical margin.

Precedence (documented in docs/stats.md): `equivalent` wins when the 90% interval lies inside
[-m, m], even if the 95% interval also excludes 0; such a difference is real but smaller than
anything the margin says matters, and `excludes_zero` stays True so it remains visible.
Otherwise `different` when the 95% interval excludes 0, else `inconclusive`. Below `minimum`
units (pairs, or clusters) the label is `insufficient evidence`: a bootstrap interval of one
to a few differences collapses to their range, so it "excludes 0" from one pair. Below
MIN_UNITS pairs, or MIN_CLUSTERS clusters, there are no intervals at all (stats.bootstrap),
so no label either.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .bootstrap import (
    DEFAULT_RESAMPLES,
    bootstrap_distributions,
    check_draw,
    percentile_interval,
    reducer,
)
from .cluster import Labels, unit_differences, unit_note
from .results import EquivalenceResult, Interval
from .rounding import widened
from .validate import FloatArray, check_finite

DEFAULT_MARGIN = 0.10
INSUFFICIENT = "insufficient evidence"
# The fewest units with which an exact two-sided sign-flip test can reach p < 0.05: its least
# p is 2 / 2**n, 0.0625 at n = 5 and 0.03125 at n = 6.
SIGN_FLIP_MINIMUM = 6


def equivalence_label(interval90: Interval, interval95: Interval, margin: float) -> str:
    """Return `equivalent`, `different` or `inconclusive` for two intervals and a margin."""
    m = _check_margin(margin)
    if _inside(interval90, m):
        return "equivalent"
    if interval95[0] > 0.0 or interval95[1] < 0.0:
        return "different"
    return "inconclusive"


def _inside(interval: Interval, m: float) -> bool:
    """Return whether an interval lies inside [-m, m], ends inclusive up to float rounding."""
    # 0.4 - 0.3 is 0.10000000000000003: a difference of exactly the margin is inside it.
    return -widened(m) <= interval[0] and interval[1] <= widened(m)


def _check_margin(margin: float) -> float:
    """Return a margin that is a finite number > 0."""
    m = check_finite(margin, "margin")
    if m <= 0.0:
        raise ValueError(f"margin must be > 0, got {margin!r}")
    return m


def _draw(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    clusters: Labels | None,
    strata: Labels | None,
    resamples: int,
    seed: int,
) -> tuple[FloatArray, FloatArray | None, str | None]:
    """Return the unit differences and the bootstrap distribution of their mean, or no
    distribution and why (too few pairs or clusters: stats.bootstrap.too_few_units)."""
    check_draw(resamples, seed)
    d, unit_strata = unit_differences(a, b, clusters, strata)
    note = unit_note(clusters, d.size, unit_strata)
    if note:
        return d, None, note
    (dist,) = bootstrap_distributions(
        d, [reducer("mean")], resamples=resamples, seed=seed, strata=unit_strata
    )
    return d, dist, None


def equivalence(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    margin: float = DEFAULT_MARGIN,
    clusters: Labels | None = None,
    strata: Labels | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    minimum: int = 0,
) -> EquivalenceResult:
    """Return the equivalence label of mean(b - a), with 90% and 95% intervals from one draw
    (`insufficient evidence` below `minimum` units, and with no intervals below MIN_UNITS
    pairs or MIN_CLUSTERS clusters)."""
    m = _check_margin(margin)
    if isinstance(minimum, bool) or not isinstance(minimum, int | np.integer) or minimum < 0:
        raise ValueError(f"minimum must be an integer >= 0, got {minimum!r}")
    d, dist, note = _draw(a, b, clusters, strata, resamples, seed)
    ci90, ci95 = (None, None) if dist is None else (percentile_interval(dist, 0.90),
                                                    percentile_interval(dist, 0.95))
    unit = "pairs" if clusters is None else "clusters"
    label = INSUFFICIENT if ci90 is None or ci95 is None or d.size < minimum else \
        equivalence_label(ci90, ci95, m)
    return EquivalenceResult(
        label=label,
        value=float(np.mean(d)),
        interval=ci95,
        interval90=ci90,
        margin=m,
        excludes_zero=None if ci95 is None else ci95[0] > 0.0 or ci95[1] < 0.0,
        within_margin=None if ci90 is None else _inside(ci90, m),
        n=d.size,
        method=f"bootstrap equivalence over {unit}: 90% in [-m, m] else 95% excludes 0"
               + (f"; {INSUFFICIENT} below {minimum} {unit}" if minimum else ""),
        seed=seed,
        resamples=resamples,
        minimum=minimum,
        interval_note=note,
    )


def bootstrap_p_values(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    of: EquivalenceResult,
    *,
    clusters: Labels | None = None,
    strata: Labels | None = None,
) -> tuple[float | None, float | None]:
    """Return (difference p, equivalence p) of mean(b - a) from the draw behind `of`.

    `of` is `equivalence(a, b, ...)` of the same data and units; its margin, resamples and
    seed give the same bootstrap distribution, so these p-values agree with its labels: the
    difference p is twice the smaller tail at 0 (below 0.05 about when the 95% interval
    excludes 0); the equivalence p is the larger tail beyond ±margin (below 0.05 about when
    the 90% interval lies inside it). Tails count (k + 1) / (B + 1) so a p-value is never 0;
    a family of them can be Holm-adjusted. Below MIN_UNITS pairs (MIN_CLUSTERS clusters) both
    are None: a draw over one unit gives the smallest p there is (2 / (B + 1)) from a single
    difference.
    """
    _, dist, _ = _draw(a, b, clusters, strata, of.resamples, of.seed)
    if dist is None:
        return None, None
    m = of.margin

    def tail(hits: int) -> float:
        return (hits + 1) / (dist.size + 1)

    p_diff = min(1.0, 2.0 * min(tail(int((dist <= 0.0).sum())), tail(int((dist >= 0.0).sum()))))
    # Beyond the margin by more than rounding, as the labels read it (ends inclusive).
    outside = widened(m)
    p_equiv = max(tail(int((dist < -outside).sum())), tail(int((dist > outside).sum())))
    return p_diff, min(1.0, p_equiv)
