"""Typed, frozen result records; each serialises to JSON-able plain data with `to_dict()`.

Every record carries `value`, `interval` ((lo, hi) or None), `n`, `method` and `seed` (None when
nothing was resampled), plus fields specific to it. Undefined numbers are None, never NaN. A
bootstrap record whose interval was withheld says why in `interval_note` (too few units:
stats.bootstrap.too_few_units).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any, cast

import numpy as np

Interval = tuple[float, float]


def plain(obj: Any) -> Any:
    """Return `obj` converted to JSON-able plain data (NaN/inf become None)."""
    if isinstance(obj, Record):
        return obj.to_dict()
    if isinstance(obj, bool | np.bool_):
        return bool(obj)
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        value = float(obj)
        return value if math.isfinite(value) else None
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | np.ndarray):
        return [plain(v) for v in obj]
    return obj


def note_field() -> Any:
    """Return the `interval_note` field: None by default, and left out of `to_dict()` while None."""
    # Left out rather than null, so every record with an interval serialises byte for byte as
    # it did before the note existed (pinned digests of reports do not move).
    return field(default=None, metadata={"omit_if_none": True})


class Record:
    """Mixin giving frozen dataclass records a `to_dict()`."""

    def to_dict(self) -> dict[str, Any]:
        """Return the record's fields as JSON-able plain data."""
        return {f.name: plain(value) for f in fields(cast(Any, self))
                if (value := getattr(self, f.name)) is not None
                or not f.metadata.get("omit_if_none")}


def non_finite_fields(obj: Any, path: str = "") -> list[str]:
    """Return the dotted paths of every inf or NaN float inside a record (nested records too)."""
    if isinstance(obj, Record):
        found: list[str] = []
        for f in fields(cast(Any, obj)):
            found.extend(non_finite_fields(getattr(obj, f.name), f"{path}{f.name}."))
        return found
    if isinstance(obj, float | np.floating):
        return [] if math.isfinite(float(obj)) else [path.rstrip(".")]
    if isinstance(obj, dict):
        return [p for k, v in obj.items() for p in non_finite_fields(v, f"{path}{k}.")]
    if isinstance(obj, list | tuple):
        return [p for i, v in enumerate(obj) for p in non_finite_fields(v, f"{path}{i}.")]
    return []


def check_finite_record(record: Record, what: str) -> None:
    """Raise ValueError naming the first statistic of `record` that overflowed to inf or NaN."""
    bad = non_finite_fields(record)
    if bad:
        raise ValueError(
            f"{what}: statistic {bad[0]} is not finite (the values are too large in magnitude "
            "for float64 arithmetic); rescale the values"
        )


@dataclass(frozen=True)
class Estimate(Record):
    """A point value with an optional interval (bootstrap percentile, Wilson, ...)."""

    value: float | None
    interval: Interval | None
    n: int
    method: str
    seed: int | None = None
    confidence: float | None = None
    resamples: int | None = None
    interval_note: str | None = note_field()


@dataclass(frozen=True)
class TestResult(Record):
    """A hypothesis test: `value` is the test statistic, `p_value` is two-sided."""

    __test__ = False  # keep pytest from collecting this class because of its name

    value: float
    p_value: float
    n: int
    method: str
    seed: int | None = None
    exact: bool = True
    permutations: int | None = None
    interval: Interval | None = None


@dataclass(frozen=True)
class HolmResult(Record):
    """Holm step-down adjusted p-values, in the order of the input."""

    adjusted: tuple[float, ...]
    p_values: tuple[float, ...]
    rejected: tuple[bool, ...]
    alpha: float
    n: int
    method: str = "holm step-down"
    seed: int | None = None
    value: float | None = None
    interval: Interval | None = None


@dataclass(frozen=True)
class EquivalenceResult(Record):
    """An equivalence label against a margin, from one bootstrap distribution of the difference
    (no intervals, and None for what they would decide, when `interval_note` says why)."""

    label: str
    value: float
    interval: Interval | None
    interval90: Interval | None
    margin: float
    excludes_zero: bool | None
    within_margin: bool | None
    n: int
    method: str
    seed: int
    resamples: int
    minimum: int = 0  # units a label needs: below it the label is `insufficient evidence`
    interval_note: str | None = note_field()


@dataclass(frozen=True)
class FlipResult(Record):
    """Flip accounting on matched binary outcomes: `value` is the flip fraction (n01+n10)/N."""

    value: float
    n: int
    n01: int
    n10: int
    net: float
    method: str = "flip accounting"
    seed: int | None = None
    interval: Interval | None = None


@dataclass(frozen=True)
class ExcessFlipResult(Record):
    """Flip rate between conditions minus flip rate between identical reruns, with a CI."""

    value: float
    interval: Interval | None
    n: int
    condition_rate: float
    rerun_rate: float
    method: str
    seed: int
    confidence: float
    resamples: int
    interval_note: str | None = note_field()


@dataclass(frozen=True)
class AgreementResult(Record):
    """Agreement of two raters: `value` is Cohen's kappa (None when undefined)."""

    value: float | None
    raw_agreement: float
    expected_agreement: float
    n: int
    categories: int
    method: str = "cohen kappa"
    seed: int | None = None
    interval: Interval | None = None


@dataclass(frozen=True)
class PowerResult(Record):
    """Monte-Carlo power of the paired design and its size under the null (Wilson intervals)."""

    value: float
    interval: Interval
    size: float
    size_interval: Interval
    n: int
    effect: float
    sd: float
    alpha: float
    test: str
    simulations: int
    method: str
    seed: int


@dataclass(frozen=True)
class VarianceShares(Record):
    """Two-factor eta squared with task blocking; `value` is the total sum of squares."""

    value: float
    shares: dict[str, float | None]
    sums_of_squares: dict[str, float]
    df: dict[str, int]
    n: int
    method: str = "two-factor eta squared, task as block"
    seed: int | None = None
    interval: Interval | None = None
    levels: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ReversalResult(Record):
    """Pairwise order changes of n units between two conditions; `value` = reversals / pairs."""

    value: float | None
    n: int
    pairs: int
    reversals: int
    ties: int
    method: str = "strict reversal: d0 * d1 < 0 over all n(n-1)/2 pairs"
    seed: int | None = None
    interval: Interval | None = None
