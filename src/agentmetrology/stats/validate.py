"""Input checks shared by the statistics functions; every error names the offending argument."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def as_values(values: npt.ArrayLike, name: str = "values") -> FloatArray:
    """Return `values` as a non-empty, finite, one-dimensional float64 array."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    bad = ~np.isfinite(arr)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must be finite; {name}[{first}] is {arr[first]}")
    return arr


def as_pair(
    a: npt.ArrayLike, b: npt.ArrayLike, names: tuple[str, str] = ("a", "b")
) -> tuple[FloatArray, FloatArray]:
    """Return two checked value arrays of equal length (paired observations)."""
    x = as_values(a, names[0])
    y = as_values(b, names[1])
    if x.size != y.size:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same length (paired), "
            f"got {x.size} and {y.size}"
        )
    return x, y


def as_binary(values: npt.ArrayLike, name: str) -> IntArray:
    """Return `values` as a non-empty 0/1 integer array (booleans accepted)."""
    arr = as_values(values, name)
    if not np.isin(arr, (0.0, 1.0)).all():
        raise ValueError(f"{name} must contain only 0/1 (or booleans)")
    return arr.astype(np.int64)


def as_labels(values: Sequence[Any] | npt.NDArray[Any], name: str, size: int) -> IntArray:
    """Return integer codes for the labels in `values` (any hashables), checked to `size`."""
    arr = values if isinstance(values, np.ndarray) else None
    if arr is not None and arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr is not None and arr.dtype.kind in "biuU":
        # Fast path for integer / string arrays, which cannot hold missing labels.
        if arr.size != size:
            raise ValueError(f"{name} must have one label per value: got {arr.size}, need {size}")
        return np.unique(arr, return_inverse=True)[1].astype(np.int64)
    items = values.tolist() if isinstance(values, np.ndarray) else list(values)
    if len(items) != size:
        raise ValueError(f"{name} must have one label per value: got {len(items)}, need {size}")
    if any(item is None or (isinstance(item, float) and math.isnan(item)) for item in items):
        raise ValueError(f"{name} must not contain missing labels (None or NaN)")
    try:
        distinct = set(items)
    except TypeError as exc:  # e.g. a list per value: a label must be hashable
        raise ValueError(f"{name} must hold hashable labels: {exc}") from None
    try:
        ordered = sorted(distinct)
    except TypeError:  # mixed label types: any fixed order will do
        ordered = sorted(distinct, key=lambda v: (type(v).__name__, str(v)))
    # Codes follow sorted label order so results do not depend on input row order.
    codes = {label: i for i, label in enumerate(ordered)}
    return np.fromiter((codes[item] for item in items), dtype=np.int64, count=size)


def check_fraction(value: float, name: str, *, allow_zero: bool, allow_one: bool = True) -> float:
    """Return `value` if it lies in (0, 1] / [0, 1] / (0, 1) as requested, else raise."""
    ok = isinstance(value, int | float | np.floating | np.integer) and not isinstance(value, bool)
    v = float(value) if ok else math.nan
    low_ok = v >= 0.0 if allow_zero else v > 0.0
    high_ok = v <= 1.0 if allow_one else v < 1.0
    if not (math.isfinite(v) and low_ok and high_ok):
        lo = "[0" if allow_zero else "(0"
        hi = "1]" if allow_one else "1)"
        raise ValueError(f"{name} must be in {lo}, {hi}, got {value!r}")
    return v


def check_confidence(confidence: float, name: str = "confidence") -> float:
    """Return a confidence level strictly between 0 and 1."""
    return check_fraction(confidence, name, allow_zero=False, allow_one=False)


def check_count(value: int, name: str, minimum: int = 1) -> int:
    """Return `value` if it is an integer >= `minimum`, else raise ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_finite(value: float, name: str) -> float:
    """Return `value` as float if it is a finite real number."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)
