"""Seeded, vectorised percentile bootstrap.

All resample indices of a memory-bounded block of resamples (at most `_BLOCK_ELEMENTS`
indices, so typical cells are a single block) are one stretch of the seeded stream, laid out as
an (n, rows) matrix; they are drawn a cache-sized tile of rows at a time, which continues the
stream exactly. The block size depends only on (n, resamples), so the same inputs and seed give
bit-identical intervals.

Resamples are laid out one per column, an (n, resamples) matrix: numpy reduces across the rows
of a short, wide matrix far faster than along many tiny rows, and cells are short (n ~ 10).

Below `MIN_UNITS` resampled units (values, pairs or clusters) no interval is given (`interval`
None, `interval_note` says why): a bootstrap over k units has C(2k - 1, k) distinct resamples,
one for a single unit (the "interval" is the value, read as certainty) and three for two (a 95%
interval is then just the two values, each drawn with probability 1/4).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from ._seeding import check_seed, generator
from .results import Estimate, Interval
from .rounding import at_least
from .validate import FloatArray, IntArray, as_values, check_confidence, check_count, check_fraction

DEFAULT_RESAMPLES = 2000
MIN_UNITS = 3  # the fewest units a bootstrap interval is given from (10 distinct resamples)
_BLOCK_ELEMENTS = 1 << 23  # 8M int64 indices = 64 MiB per block
_LANE_ROWS = 2048  # CVaR partitions a resample of at least this many values as one row
_TILE_ELEMENTS = 1 << 16  # values copied or looked up at a time (512 KiB of float64)

# A reducer maps an (n, resamples) matrix, one resample per column, to one value per column.
Reducer = Callable[[FloatArray], FloatArray]


def units_text(k: int, unit: str) -> str:
    """Return `k unit(s)`, singular for one."""
    return f"{k} {unit}{'' if k == 1 else 's'}"


def distinct_resamples(k: int) -> str:
    """Return how many distinct resamples a bootstrap over k units has, C(2k - 1, k), in words
    (`3 distinct resamples` for two units)."""
    return units_text(math.comb(2 * k - 1, k), "distinct resample")


def too_few_units(counts: Sequence[int], unit: str = "value",
                  sides: Sequence[str] = ()) -> str | None:
    """Return why a bootstrap over these units (per side, if named) gives no interval, or None
    when every side has at least MIN_UNITS."""
    least = min(counts)
    if least >= MIN_UNITS:
        return None
    said = ", ".join(f"{units_text(k, unit)} {side}"
                     for k, side in zip(counts, sides, strict=True)
                     ) if sides else units_text(least, unit)
    # no unit at all has nothing to resample (C(-1, 0) has no meaning: math.comb refused it)
    drawn = (f"a bootstrap over {units_text(least, unit)} has {distinct_resamples(least)}"
             if least > 0 else "there is nothing to resample")
    return (f"no interval: {said}; {drawn}, an interval needs at least "
            f"{MIN_UNITS} {unit}s{' on each side' if sides else ''}")


def check_draw(resamples: int, seed: int) -> None:
    """Raise ValueError unless `resamples` is a positive count and `seed` a valid seed."""
    # Checked before any draw: an interval withheld for too few units draws nothing, and a bad
    # seed must fail the same whatever the data.
    check_count(resamples, "resamples")
    check_seed(seed)


def cvar_count(alpha: float, n: int) -> int:
    """Return ceil(alpha*n), the number of worst runs CVaR averages (alpha*n rounded to 9 d.p.)."""
    # Rounding first keeps float noise from adding a run: 0.14*50 is 7.000000000000001.
    return max(1, math.ceil(round(alpha * n, 9)))


def reducer(statistic: str, *, alpha: float = 0.2, tau: float = 0.9) -> Reducer:
    """Return the column-wise reducer for a named statistic: mean, worst, cvar or reliability."""
    if statistic == "mean":
        return lambda m: m.sum(axis=0) / m.shape[0]
    if statistic == "worst":
        return lambda m: m.min(axis=0)
    if statistic == "cvar":
        a = check_fraction(alpha, "alpha", allow_zero=False)
        spare: list[FloatArray] = []  # the transposition buffer, reused block after block
        return lambda m: _cvar(m, cvar_count(a, m.shape[0]), spare)
    if statistic == "reliability":
        t = check_fraction(tau, "tau", allow_zero=True)
        return lambda m: np.count_nonzero(at_least(m, t), axis=0) / m.shape[0]
    raise ValueError(
        f"statistic must be one of mean, worst, cvar, reliability or a callable, got {statistic!r}"
    )


def _cvar(m: FloatArray, k: int, spare: list[FloatArray]) -> FloatArray:
    """Return the mean of the k smallest values of each column."""
    if k == 1:
        return m.min(axis=0)
    if m.shape[0] < _LANE_ROWS:
        # partition puts the k smallest first (unordered), which is all a mean needs.
        return np.partition(m, k - 1, axis=0)[:k].sum(axis=0) / k
    # A tall column is partitioned as a contiguous row: numpy copies a strided column into a
    # buffer, runs the same selection and copies it back, missing the cache at every value.
    # Same selection on the same values: the same order, and (summed down the columns again,
    # in that order) the same CVaR to the last bit.
    rows = _transposed(m, spare)
    rows.partition(k - 1, axis=1)
    return np.ascontiguousarray(rows[:, :k].T).sum(axis=0) / k


def _transposed(m: FloatArray, spare: list[FloatArray]) -> FloatArray:
    """Return m.T as a C-contiguous copy in spare's buffer (never a view of m: m may be the
    caller's values), copied a tile of rows at a time."""
    n, cols = m.shape
    if not spare or spare[0].size < m.size:
        spare[:] = [np.empty(m.size)]
    rows = spare[0][: m.size].reshape(cols, n)
    # Tiles that stay in cache, into a buffer already mapped: 5x faster than m.T.copy().
    step = max(1, _TILE_ELEMENTS // cols)
    for first in range(0, n, step):
        rows[:, first:first + step] = m[first:first + step].T
    return rows


def _quantile(ordered: FloatArray, q: float) -> float:
    """Return numpy's default ('linear') quantile from an array partitioned around it."""
    h = (ordered.size - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, ordered.size - 1)
    a, b, t = float(ordered[lo]), float(ordered[hi]), h - lo
    # The same two-sided lerp as numpy, so results equal np.quantile's to the last bit.
    return b - (b - a) * (1.0 - t) if t >= 0.5 else a + (b - a) * t


def percentile_interval(distribution: FloatArray, confidence: float) -> Interval:
    """Return the (lo, hi) percentile interval of a bootstrap distribution."""
    tail = (1.0 - check_confidence(confidence)) / 2.0
    last = distribution.size - 1
    # Partitioning around the four order statistics needed is much cheaper than np.quantile.
    kth = sorted({min(math.floor(last * q) + d, last) for q in (tail, 1 - tail) for d in (0, 1)})
    ordered = np.partition(distribution, kth)
    return _quantile(ordered, tail), _quantile(ordered, 1.0 - tail)


def resample_indices(
    rng: np.random.Generator, n: int, rows: int, strata: IntArray | None = None
) -> IntArray:
    """Return an (n, rows) matrix of indices, one resample per column (within strata if given)."""
    if strata is None:
        return rng.integers(0, n, size=(n, rows))
    # Row j draws uniformly from the members of its own stratum: one call with per-row upper
    # bounds, then offsets map the draw to positions in stratum-sorted order.
    order = np.argsort(strata, kind="stable")
    sorted_strata = strata[order]
    starts = np.searchsorted(sorted_strata, sorted_strata, side="left")
    ends = np.searchsorted(sorted_strata, sorted_strata, side="right")
    local = rng.integers(0, (ends - starts)[:, np.newaxis], size=(n, rows))
    return order[starts[:, np.newaxis] + local]


def _fill(rng: np.random.Generator, values: FloatArray, matrix: FloatArray) -> None:
    """Fill an (n, rows) block with values at indices drawn as resample_indices draws them."""
    n, cols = matrix.shape
    # numpy draws any range below 2^32 from 32-bit words, whatever the dtype, and a draw of
    # some rows continues the stream where the one before stopped: int32 indices drawn a tile
    # of rows at a time are the block's int64 indices, made twice as fast, and each tile is
    # looked up while it is in cache instead of after a 64 MiB index array was written.
    dtype = np.int32 if n < 1 << 31 else np.int64
    step = max(1, _TILE_ELEMENTS // cols)
    for first in range(0, n, step):
        tile = matrix[first:first + step]
        # mode "clip" (the indices are all in range anyway): with "raise", `out` is buffered.
        np.take(values, rng.integers(0, n, size=tile.shape, dtype=dtype), out=tile, mode="clip")


def bootstrap_distributions(
    values: FloatArray,
    reducers: Sequence[Reducer],
    *,
    resamples: int,
    seed: int,
    strata: IntArray | None = None,
) -> list[FloatArray]:
    """Return one bootstrap distribution per reducer, all computed from the same resamples."""
    rng = generator(seed)
    n = values.size
    block = max(1, _BLOCK_ELEMENTS // n)
    outputs = [np.empty(resamples, dtype=np.float64) for _ in reducers]
    # One buffer for every block: a fresh 64 MiB array per block cost its page faults again.
    buffer = np.empty(n * min(block, resamples))
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        matrix = buffer[: n * (stop - start)].reshape(n, stop - start)
        if strata is None:
            _fill(rng, values, matrix)
        else:
            matrix[...] = values[resample_indices(rng, n, stop - start, strata)]
        for out, reduce in zip(outputs, reducers, strict=True):
            out[start:stop] = reduce(matrix)
    return outputs


def bootstrap_cis(
    values: npt.ArrayLike,
    statistics: Sequence[str],
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    alpha: float = 0.2,
    tau: float = 0.9,
) -> tuple[Estimate, ...]:
    """Return percentile-bootstrap estimates for several named statistics from shared resamples
    (no intervals below MIN_UNITS values: `interval_note` says why)."""
    x = as_values(values)
    check_confidence(confidence)
    check_draw(resamples, seed)
    reducers = [reducer(name, alpha=alpha, tau=tau) for name in statistics]
    note = too_few_units([x.size])
    dists: list[FloatArray | None] = (
        [None] * len(reducers) if note else
        list(bootstrap_distributions(x, reducers, resamples=resamples, seed=seed)))
    out = []
    for name, reduce, dist in zip(statistics, reducers, dists, strict=True):
        point = float(reduce(x[:, np.newaxis])[0])
        out.append(
            Estimate(
                value=point,
                interval=None if dist is None else percentile_interval(dist, confidence),
                n=x.size,
                method=f"percentile bootstrap of {name}",
                seed=seed,
                confidence=confidence,
                resamples=resamples,
                interval_note=note,
            )
        )
    return tuple(out)


def bootstrap_ci(
    values: npt.ArrayLike,
    statistic: str | Callable[[FloatArray], FloatArray] = "mean",
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    alpha: float = 0.2,
    tau: float = 0.9,
) -> Estimate:
    """Return the statistic with its seeded percentile-bootstrap interval (resampling values).

    `statistic` is a name (mean, worst, cvar, reliability) or a callable reducing each row of
    a (resamples, n) matrix to one number. Below MIN_UNITS values there is no interval
    (`interval_note` says why).
    """
    if isinstance(statistic, str):
        return bootstrap_cis(
            values,
            [statistic],
            confidence=confidence,
            resamples=resamples,
            seed=seed,
            alpha=alpha,
            tau=tau,
        )[0]
    x = as_values(values)
    check_confidence(confidence)
    check_draw(resamples, seed)
    note = too_few_units([x.size])
    interval = None
    if not note:
        # The callable works row-wise on (resamples, n), like scipy's vectorised statistics.
        (dist,) = bootstrap_distributions(x, [lambda m: statistic(m.T)], resamples=resamples,
                                          seed=seed)
        interval = percentile_interval(dist, confidence)
    name = getattr(statistic, "__name__", "statistic")
    return Estimate(
        value=float(statistic(x[np.newaxis, :])[0]),
        interval=interval,
        n=x.size,
        method=f"percentile bootstrap of {name}",
        seed=seed,
        confidence=confidence,
        resamples=resamples,
        interval_note=note,
    )
