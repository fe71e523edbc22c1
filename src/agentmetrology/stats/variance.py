"""Two-factor variance shares (eta squared) with task as a blocking factor.

Input is a (tasks, levels_a, levels_b) array with one observation per (task, a, b) cell. The
model is y = mu + task + A + B + AxB + residual; with one observation per cell the residual is
the task-by-treatment interaction, so task and residual together are what the factors leave.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .results import VarianceShares


def _as_design(table: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Return `table` as a finite 3-D float array with at least two levels on every axis."""
    try:
        y = np.asarray(table, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"table must be numeric: {exc}") from None
    if y.ndim != 3:
        raise ValueError(f"table must be 3-D (tasks, levels_a, levels_b), got shape {y.shape}")
    if min(y.shape) < 2:
        raise ValueError(f"table needs >= 2 tasks and >= 2 levels per factor, got {y.shape}")
    if not np.isfinite(y).all():
        raise ValueError("table must be finite (one observation in every cell, no NaN)")
    return y


def eta_squared(table: npt.ArrayLike) -> VarianceShares:
    """Return eta squared shares of factor A, factor B, AxB, task and residual."""
    y = _as_design(table)
    t, i, j = y.shape
    grand = y.mean()
    m_task = y.mean(axis=(1, 2))
    m_a = y.mean(axis=(0, 2))
    m_b = y.mean(axis=(0, 1))
    m_ab = y.mean(axis=0)
    ss = {
        "a": float(t * j * np.sum((m_a - grand) ** 2)),
        "b": float(t * i * np.sum((m_b - grand) ** 2)),
        "ab": float(t * np.sum((m_ab - m_a[:, None] - m_b[None, :] + grand) ** 2)),
        "task": float(i * j * np.sum((m_task - grand) ** 2)),
    }
    total = float(np.sum((y - grand) ** 2))
    # The residual is what is left; clamp float noise so a share is never slightly negative.
    ss["residual"] = max(0.0, total - sum(ss.values()))
    df = {
        "a": i - 1,
        "b": j - 1,
        "ab": (i - 1) * (j - 1),
        "task": t - 1,
        "residual": (t - 1) * (i * j - 1),
    }
    shares: dict[str, float | None] = {
        key: (value / total if total > 0.0 else None) for key, value in ss.items()
    }
    return VarianceShares(
        value=total,
        shares=shares,
        sums_of_squares=ss,
        df=df,
        n=int(y.size),
        levels={"task": t, "a": i, "b": j},
    )
