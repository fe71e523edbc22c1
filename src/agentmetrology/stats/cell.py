"""Per-cell reliability: mean, worst case, CVaR, Reliability@tau and the reliability gap.

A cell is the terminal rewards of one target on one task (or suite), one value per run/seed.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .bootstrap import cvar_count
from .results import Estimate
from .rounding import at_least
from .validate import as_values, check_fraction


def mean(values: npt.ArrayLike) -> Estimate:
    """Return the arithmetic mean of the runs."""
    x = as_values(values)
    return Estimate(value=float(x.mean()), interval=None, n=x.size, method="mean")


def worst(values: npt.ArrayLike) -> Estimate:
    """Return the minimum over runs (the deployment floor over the tested seeds)."""
    x = as_values(values)
    return Estimate(value=float(x.min()), interval=None, n=x.size, method="worst (minimum)")


def cvar(values: npt.ArrayLike, alpha: float = 0.2) -> Estimate:
    """Return CVaR@alpha: the mean of the worst ceil(alpha*n) runs (sorted ascending)."""
    x = as_values(values)
    a = check_fraction(alpha, "alpha", allow_zero=False)
    k = cvar_count(a, x.size)
    # Which of several tied values is "taken" cannot change the mean of the k smallest.
    tail = np.sort(x)[:k]
    return Estimate(
        value=float(tail.mean()),
        interval=None,
        n=x.size,
        method=f"cvar@{a:g}: mean of worst {k} of {x.size}",
    )


def reliability_at(values: npt.ArrayLike, tau: float = 0.9) -> Estimate:
    """Return Reliability@tau: the fraction of runs with value >= tau (up to float rounding)."""
    x = as_values(values)
    t = check_fraction(tau, "tau", allow_zero=True)
    return Estimate(
        value=float(np.count_nonzero(at_least(x, t)) / x.size),
        interval=None,
        n=x.size,
        method=f"reliability@{t:g}: fraction of runs >= {t:g}",
    )


def reliability_gap(static: npt.ArrayLike, hardest: npt.ArrayLike | None = None) -> Estimate:
    """Return mean(static) - worst(hardest); with one array, mean - worst of the same runs."""
    x = as_values(static, "static")
    y = x if hardest is None else as_values(hardest, "hardest")
    method = "mean - worst" if hardest is None else "mean(static) - worst(hardest level)"
    return Estimate(value=float(x.mean() - y.min()), interval=None, n=x.size, method=method)
