"""Rank reversals: how many pairs of units swap order between two conditions.

For units i < j, d0 = x0[i] - x0[j] and d1 = x1[i] - x1[j]; the pair is a strict reversal when
d0 * d1 < 0, and a tie when either difference is 0 (a tie is never counted as a reversal).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .results import ReversalResult
from .validate import as_pair


def pair_count(n: int) -> int:
    """Return n(n-1)/2, the number of unordered pairs among n units."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    return n * (n - 1) // 2


def reversals(before: npt.ArrayLike, after: npt.ArrayLike) -> ReversalResult:
    """Return the number of unit pairs whose order strictly reverses between two conditions."""
    x0, x1 = as_pair(before, after, ("before", "after"))
    n = x0.size
    upper = np.triu_indices(n, k=1)
    d0 = (x0[:, np.newaxis] - x0[np.newaxis, :])[upper]
    d1 = (x1[:, np.newaxis] - x1[np.newaxis, :])[upper]
    product = d0 * d1
    pairs = pair_count(n)
    count = int(np.count_nonzero(product < 0))
    return ReversalResult(
        value=count / pairs if pairs else None,
        n=n,
        pairs=pairs,
        reversals=count,
        ties=int(np.count_nonzero(product == 0)),
    )
