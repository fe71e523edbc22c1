"""Task-cluster bootstrap: resample tasks (optionally within strata), keeping repeats together.

Repeats of a task are averaged first and the estimate is the mean over tasks, so every task
weighs the same however many repeats it has. Resampling a task brings all its repeats along,
which is the same as resampling the task means; that is how it is computed.

Below `MIN_CLUSTERS` clusters no interval is given (`interval` None, `interval_note` says why):
the bootstrap's rule over units (stats.bootstrap.MIN_UNITS), with clusters as the units; a 95%
interval over two clusters would be just the two cluster means.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .bootstrap import (
    DEFAULT_RESAMPLES,
    MIN_UNITS,
    bootstrap_distributions,
    check_draw,
    distinct_resamples,
    percentile_interval,
    reducer,
    too_few_units,
    units_text,
)
from .results import Estimate, Interval
from .rounding import cancel_to_zero
from .validate import (
    FloatArray,
    IntArray,
    as_labels,
    as_pair,
    as_values,
    check_confidence,
)

Labels = Sequence[Any] | npt.NDArray[Any]
MIN_CLUSTERS = MIN_UNITS  # the fewest clusters a cluster-bootstrap interval is given from


def too_few_clusters(counts: Sequence[int], sides: Sequence[str] = ()) -> str | None:
    """Return why a bootstrap over these clusters (per side, if named) gives no interval, or
    None when every side has at least MIN_CLUSTERS."""
    return too_few_units(counts, "cluster", sides)


def unit_note(clusters: Labels | None, units: int,
              unit_strata: IntArray | None = None) -> str | None:
    """Return why a bootstrap over `units` pairs (or clusters, when given), resampled within
    `unit_strata` if given, gives no interval, or None when there are enough."""
    unit = "pair" if clusters is None else "cluster"
    return too_few_units([units], unit) or stratum_note(unit_strata, unit)


def stratum_note(unit_strata: IntArray | None, unit: str) -> str | None:
    """Return why a bootstrap within strata gives no interval: a stratum holding fewer than
    MIN_UNITS units is resampled into (nearly) itself every time, so its share of the variance
    goes missing and the interval narrows to a point (three strata of one cluster each gave
    [0.5, 0.5]); None when every stratum has enough."""
    if unit_strata is None:
        return None
    least = int(np.unique(unit_strata, return_counts=True)[1].min())
    if least >= MIN_UNITS:
        return None
    return (f"no interval: a stratum holds {units_text(least, unit)}; a bootstrap within it "
            f"has {distinct_resamples(least)}, and each stratum needs at least {MIN_UNITS} "
            f"{unit}s")


def cluster_means(
    values: npt.ArrayLike, clusters: Labels, strata: Labels | None = None
) -> tuple[FloatArray, IntArray | None]:
    """Return per-cluster means (clusters in sorted label order) and each cluster's stratum code."""
    x = as_values(values)
    codes = as_labels(clusters, "clusters", x.size)
    counts = np.bincount(codes)
    # Signed values that cancel within a cluster (+0.1 and -0.1) average to exactly 0, not to
    # rounding noise whose sign a test or an interval would read as an effect; a mean of
    # values of one sign is never changed by this.
    means = cancel_to_zero(np.bincount(codes, weights=x) / counts,
                           np.bincount(codes, weights=np.abs(x)) / counts)
    if strata is None:
        return means, None
    s_codes = as_labels(strata, "strata", x.size)
    cluster_stratum = np.zeros(counts.size, dtype=np.int64)
    # Assign in reverse so each cluster keeps the stratum of its first row, then verify all rows.
    cluster_stratum[codes[::-1]] = s_codes[::-1]
    if not np.array_equal(cluster_stratum[codes], s_codes):
        raise ValueError("strata must be constant within each cluster")
    return means, cluster_stratum


def mean_interval(units: FloatArray, strata: IntArray | None, note: str | None,
                  confidence: float, resamples: int, seed: int) -> Interval | None:
    """Return the percentile interval of the mean over resampled units (None when `note` says
    there is none)."""
    if note:
        return None
    (dist,) = bootstrap_distributions(
        units, [reducer("mean")], resamples=resamples, seed=seed, strata=strata
    )
    return percentile_interval(dist, confidence)


def cluster_bootstrap(
    values: npt.ArrayLike,
    clusters: Labels,
    *,
    strata: Labels | None = None,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Estimate:
    """Return the mean over clusters of within-cluster means, with a cluster-bootstrap interval
    (none below MIN_CLUSTERS clusters: `interval_note` says why)."""
    check_confidence(confidence)
    check_draw(resamples, seed)
    means, cluster_strata = cluster_means(values, clusters, strata)
    note = too_few_clusters([means.size]) or stratum_note(cluster_strata, "cluster")
    kind = "stratified task-cluster bootstrap" if strata is not None else "task-cluster bootstrap"
    rows = np.asarray(values).size
    return Estimate(
        value=float(means.mean()),
        interval=mean_interval(means, cluster_strata, note, confidence, resamples, seed),
        n=means.size,
        method=f"{kind} of the mean ({units_text(means.size, 'cluster')}, {rows} values)",
        seed=seed,
        confidence=confidence,
        resamples=resamples,
        interval_note=note,
    )


def resampling_name(clusters: Labels | None, strata: Labels | None) -> str:
    """Name the resampling scheme for a result's `method`."""
    unit = "pair bootstrap" if clusters is None else "task-cluster bootstrap"
    return f"stratified {unit}" if strata is not None else unit


def unit_differences(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    clusters: Labels | None = None,
    strata: Labels | None = None,
) -> tuple[FloatArray, IntArray | None]:
    """Return d = b - a per unit (a pair, or a cluster's mean difference) and unit strata codes."""
    x, y = as_pair(a, b)
    d = y - x
    if clusters is not None:
        return cluster_means(d, clusters, strata)
    if strata is None:
        return d, None
    return d, as_labels(strata, "strata", d.size)
