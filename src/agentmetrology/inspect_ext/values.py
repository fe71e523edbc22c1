"""Inspect score values as numbers for our statistics, with the ones that are not numbers counted.

Inspect marks an unscored sample with NaN (`Score.unscored`) and drops it before metrics run,
counting it as `unscored_samples`; a metric called on its own may still see one. Inspect's own
`value_to_float` turns a dict, a list or an unknown string into 0 with a warning: here they are
excluded and counted instead, because a value that is not a measurement is never a zero.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# Inspect's letter grades (CORRECT, INCORRECT, PARTIAL, NOANSWER) as its own metrics read them.
LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


@dataclass(frozen=True, slots=True)
class Numbers:
    """The numeric values of a list of scores and how many were excluded as not numbers."""

    values: tuple[float, ...]
    excluded: int


def as_number(value: Any) -> float | None:
    """Return a score value as a finite float, or None when it is not a measurement."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        num = float(value)
        return num if math.isfinite(num) else None
    if isinstance(value, str):
        if value in LETTERS:
            return LETTERS[value]
        try:
            num = float(value)
        except ValueError:
            return None
        return num if math.isfinite(num) else None
    return None  # dict / list values need a reducer the caller chooses


def numbers(values: Iterable[Any]) -> Numbers:
    """Return the finite numeric values (in order) and the count of the rest."""
    kept: list[float] = []
    excluded = 0
    for v in values:
        num = as_number(v)
        if num is None:
            excluded += 1
        else:
            kept.append(num)
    return Numbers(tuple(kept), excluded)
