"""Flip accounting on matched binary outcomes, and the repeat-controlled excess flip rate."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .bootstrap import (
    DEFAULT_RESAMPLES,
    bootstrap_distributions,
    check_draw,
    percentile_interval,
    reducer,
    too_few_units,
)
from .cluster import too_few_clusters
from .results import ExcessFlipResult, FlipResult
from .validate import (
    FloatArray,
    IntArray,
    as_binary,
    as_labels,
    check_confidence,
)


def _matched(a: npt.ArrayLike, b: npt.ArrayLike, names: tuple[str, str]) -> tuple[IntArray, ...]:
    """Return two checked 0/1 arrays of equal length."""
    x, y = as_binary(a, names[0]), as_binary(b, names[1])
    if x.size != y.size:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same length (matched), "
            f"got {x.size} and {y.size}"
        )
    return x, y


def flips(a: npt.ArrayLike, b: npt.ArrayLike) -> FlipResult:
    """Return n01 (fail->pass), n10 (pass->fail), net (n01-n10)/N and flip fraction (n01+n10)/N."""
    x, y = _matched(a, b, ("a", "b"))
    n01 = int(np.count_nonzero((x == 0) & (y == 1)))
    n10 = int(np.count_nonzero((x == 1) & (y == 0)))
    n = x.size
    return FlipResult(value=(n01 + n10) / n, n=n, n01=n01, n10=n10, net=(n01 - n10) / n)


def excess_flip_rate(
    condition_a: npt.ArrayLike,
    condition_b: npt.ArrayLike,
    rerun_a: npt.ArrayLike,
    rerun_b: npt.ArrayLike,
    *,
    same_units: bool = True,
    clusters: tuple[npt.ArrayLike, npt.ArrayLike] | None = None,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> ExcessFlipResult:
    """Return flip rate between conditions minus flip rate between identical reruns, with a CI.

    With `same_units` the four arrays describe the same units in the same order and units are
    resampled jointly; otherwise the condition and rerun units are resampled independently.
    `clusters` (independent units only): the cluster label (e.g. task) of each condition unit
    and of each rerun unit; whole clusters are resampled on each side, so units of one task,
    which share its difficulty, are not counted as independent evidence. The rates stay the
    share of flipping units. Below MIN_CLUSTERS clusters on a side, or MIN_UNITS units
    without clusters, there is no interval (`interval_note` says why).
    """
    check_confidence(confidence)
    check_draw(resamples, seed)
    ca, cb = _matched(condition_a, condition_b, ("condition_a", "condition_b"))
    ra, rb = _matched(rerun_a, rerun_b, ("rerun_a", "rerun_b"))
    cond = (ca != cb).astype(np.float64)
    rerun = (ra != rb).astype(np.float64)
    if clusters is not None:
        if same_units:
            raise ValueError("clusters need same_units=False (each side's clusters are "
                             "resampled on their own)")
        sums, counts = _cluster_sums(cond, rerun, clusters)
        note = too_few_clusters([c.size for c in counts],
                                ("of condition units", "of rerun units"))
        return _excess_result(cond, rerun,
                              None if note else _clustered_excess(sums, counts, resamples, seed),
                              "independent task-cluster bootstrap", seed, confidence, resamples,
                              note)
    if same_units and cond.size != rerun.size:
        raise ValueError(
            "rerun_a must have the same length as condition_a when same_units=True, "
            f"got {rerun.size} and {cond.size}"
        )
    note = too_few_units([cond.size], "unit") if same_units else too_few_units(
        [cond.size, rerun.size], "unit", ("on the condition side", "on the rerun side"))
    dist: FloatArray | None = None  # no draw when the interval is withheld (`note` says why)
    if note is None and same_units:
        # Joint resampling of units: the excess is the mean of the per-unit difference.
        (dist,) = bootstrap_distributions(
            cond - rerun, [reducer("mean")], resamples=resamples, seed=seed
        )
    elif note is None:
        dist = _independent_excess(cond, rerun, resamples, seed)
    return _excess_result(cond, rerun, dist,
                          f"{'joint' if same_units else 'independent'} unit bootstrap",
                          seed, confidence, resamples, note)


def _excess_result(cond: FloatArray, rerun: FloatArray, dist: FloatArray | None, how: str,
                   seed: int, confidence: float, resamples: int,
                   note: str | None = None) -> ExcessFlipResult:
    """Return the excess flip rate of the per-unit flips with the interval of `dist` (none
    without a distribution: `note` says why)."""
    return ExcessFlipResult(
        value=float(cond.mean() - rerun.mean()),
        interval=None if dist is None else percentile_interval(dist, confidence),
        n=cond.size,
        condition_rate=float(cond.mean()),
        rerun_rate=float(rerun.mean()),
        method=f"excess flip rate, {how}",
        seed=seed,
        confidence=confidence,
        resamples=resamples,
        interval_note=note,
    )


def _cluster_sums(cond: FloatArray, rerun: FloatArray,
                  clusters: tuple[npt.ArrayLike, npt.ArrayLike]
                  ) -> tuple[list[FloatArray], list[FloatArray]]:
    """Return each side's flips and units per cluster (condition side first)."""
    sums, counts = [], []
    for flipped, labels, name in ((cond, clusters[0], "condition clusters"),
                                  (rerun, clusters[1], "rerun clusters")):
        codes = as_labels(np.asarray(labels) if not isinstance(labels, np.ndarray) else labels,
                          name, flipped.size)
        counts.append(np.bincount(codes).astype(np.float64))
        sums.append(np.bincount(codes, weights=flipped).astype(np.float64))
    return sums, counts


def _clustered_excess(sums: list[FloatArray], counts: list[FloatArray], resamples: int,
                      seed: int) -> FloatArray:
    """Bootstrap each side's clusters independently (two strata of one array of cluster
    indices); a resample's rate on a side is its flips over its units (a ratio of sums)."""
    k = counts[0].size
    flip_sum, unit_sum = np.concatenate(sums), np.concatenate(counts)
    strata = np.repeat(np.array([0, 1], dtype=np.int64), (k, counts[1].size))

    def excess(m: FloatArray) -> FloatArray:
        at = m.astype(np.int64)  # the resampled cluster indices
        f, u = flip_sum[at], unit_sum[at]
        return f[:k].sum(axis=0) / u[:k].sum(axis=0) - f[k:].sum(axis=0) / u[k:].sum(axis=0)

    (dist,) = bootstrap_distributions(np.arange(flip_sum.size, dtype=np.float64), [excess],
                                      resamples=resamples, seed=seed, strata=strata)
    return dist


def _independent_excess(
    cond: FloatArray, rerun: FloatArray, resamples: int, seed: int
) -> FloatArray:
    """Bootstrap the two unit sets independently in one draw, as two strata of one array."""
    k = cond.size
    joined = np.concatenate((cond, rerun))
    strata = np.repeat(np.array([0, 1], dtype=np.int64), (k, rerun.size))
    # Stratified resampling keeps row order by stratum: the first k rows are condition units.
    (dist,) = bootstrap_distributions(
        joined,
        [lambda m: m[:k].mean(axis=0) - m[k:].mean(axis=0)],
        resamples=resamples,
        seed=seed,
        strata=strata,
    )
    return dist
