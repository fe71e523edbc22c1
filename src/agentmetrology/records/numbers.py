"""Finite numbers: the one test of whether a value read from a scorer or a record is a number."""

from __future__ import annotations

import math
from typing import Any


def finite_float(value: Any) -> float | None:
    """Return value as a finite float, or None (missing, bool, NaN, inf, huge int, non-number)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        v = float(value)
    except OverflowError:  # an integer literal beyond the float range
        return None
    return v if math.isfinite(v) else None
