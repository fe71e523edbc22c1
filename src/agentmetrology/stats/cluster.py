"""Task-cluster bootstrap: resample tasks (optionally within strata), keeping repeats together.

Repeats of a task are averaged first and the estimate is the mean over tasks, so every task
weighs the same however many repeats it has. Resampling a task brings all its repeats along,
which is the same as resampling the task means; that is how it is computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .bootstrap import DEFAULT_RESAMPLES, bootstrap_distributions, percentile_interval, reducer
from .results import Estimate
from .rounding import cancel_to_zero
from .validate import (
    FloatArray,
    IntArray,
    as_labels,
    as_pair,
    as_values,
    check_confidence,
    check_count,
)

Labels = Sequence[Any] | npt.NDArray[Any]


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


def cluster_bootstrap(
    values: npt.ArrayLike,
    clusters: Labels,
    *,
    strata: Labels | None = None,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Estimate:
    """Return the mean over clusters of within-cluster means, with a cluster-bootstrap interval."""
    check_confidence(confidence)
    check_count(resamples, "resamples")
    means, cluster_strata = cluster_means(values, clusters, strata)
    (dist,) = bootstrap_distributions(
        means, [reducer("mean")], resamples=resamples, seed=seed, strata=cluster_strata
    )
    kind = "stratified task-cluster bootstrap" if strata is not None else "task-cluster bootstrap"
    rows = np.asarray(values).size
    return Estimate(
        value=float(means.mean()),
        interval=percentile_interval(dist, confidence),
        n=means.size,
        method=f"{kind} of the mean ({means.size} clusters, {rows} values)",
        seed=seed,
        confidence=confidence,
        resamples=resamples,
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
