"""The reliability summary of one group of runs, and a ranked table of groups.

Each group's intervals depend only on its own values and the seed (every group restarts the
same seeded stream), so adding or removing a group never changes another group's numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .bootstrap import DEFAULT_RESAMPLES, bootstrap_cis
from .cell import reliability_gap, worst
from .intervals import wilson
from .results import Estimate, Record, check_finite_record
from .rounding import REL_TOL, at_least
from .validate import as_values, check_fraction


@dataclass(frozen=True)
class CellSummary(Record):
    """Mean with CI, worst, CVaR with CI, Reliability@tau with Wilson CI, and the gap."""

    n: int
    mean: Estimate
    worst: Estimate
    cvar: Estimate
    reliability: Estimate
    gap: Estimate
    alpha: float
    tau: float
    seed: int


@dataclass(frozen=True)
class TableRow(Record):
    """One group of a reliability table with its rank by mean and by worst case (1 = best)."""

    key: tuple[str, ...]
    summary: CellSummary
    rank_mean: int
    rank_worst: int


def summarize_cell(
    values: npt.ArrayLike,
    *,
    tau: float = 0.9,
    alpha: float = 0.2,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> CellSummary:
    """Return the full reliability summary of one group's runs."""
    x = as_values(values)
    t = check_fraction(tau, "tau", allow_zero=True)
    a = check_fraction(alpha, "alpha", allow_zero=False)
    # Mean and CVaR intervals come from the same resamples: one draw per cell.
    mean_ci, cvar_ci = bootstrap_cis(
        x, ["mean", "cvar"], confidence=confidence, resamples=resamples, seed=seed, alpha=a
    )
    k = int(np.count_nonzero(at_least(x, t)))
    rel = wilson(k, x.size, confidence)
    summary = CellSummary(
        n=x.size,
        mean=mean_ci,
        worst=worst(x),
        cvar=cvar_ci,
        reliability=Estimate(
            value=rel.value,
            interval=rel.interval,
            n=x.size,
            method=f"reliability@{t:g} with wilson interval",
            confidence=confidence,
        ),
        gap=reliability_gap(x),
        alpha=a,
        tau=t,
        seed=seed,
    )
    # An overflowing sum would otherwise reach JSON as null and the table as a dash.
    check_finite_record(summary, "summarize_cell")
    return summary


def _competition_ranks(scores: list[float]) -> list[int]:
    """Return 1-based ranks, higher score better, ties sharing the best rank (1, 2, 2, 4)."""
    x = np.asarray(scores)
    ordered = np.sort(x)
    # A tie up to rounding: the mean of 0.1 and 0.2 is 0.15000000000000002, that of 0.15 and
    # 0.15 is 0.15; both are 0.15 and must share a rank, not be ranked 1 and 2.
    greater = ordered.size - np.searchsorted(ordered, x + REL_TOL * np.abs(x), side="right")
    return [1 + int(g) for g in greater]


def reliability_table(
    groups: Mapping[tuple[str, ...], npt.ArrayLike] | Mapping[str, npt.ArrayLike],
    *,
    tau: float = 0.9,
    alpha: float = 0.2,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> tuple[TableRow, ...]:
    """Return one row per group, sorted by mean (best first), with mean and worst-case ranks."""
    if not groups:
        raise ValueError("groups must not be empty")
    keys = [key if isinstance(key, tuple) else (key,) for key in groups]
    summaries = [
        summarize_cell(
            values, tau=tau, alpha=alpha, confidence=confidence, resamples=resamples, seed=seed
        )
        for values in groups.values()
    ]
    mean_ranks = _competition_ranks([float(s.mean.value or 0.0) for s in summaries])
    worst_ranks = _competition_ranks([float(s.worst.value or 0.0) for s in summaries])
    rows = [
        TableRow(key=key, summary=s, rank_mean=rm, rank_worst=rw)
        for key, s, rm, rw in zip(keys, summaries, mean_ranks, worst_ranks, strict=True)
    ]
    # Best mean first; ties by worst case, then by key so the order is total and stable.
    rows.sort(key=lambda r: (r.rank_mean, r.rank_worst, r.key))
    return tuple(rows)
