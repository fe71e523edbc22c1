"""Inspect score values as numbers for our statistics, with the ones that are not numbers counted.

Inspect marks an unscored sample with NaN (`Score.unscored`) and drops it before metrics run,
counting it as `unscored_samples`; a metric called on its own may still see one. Inspect's own
`value_to_float` turns a dict, a list or an unknown string into 0 with a warning: here they are
excluded and counted instead, because a value that is not a measurement is never a zero.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agentmetrology.inspect_ext.logs.grades import score_value


@dataclass(frozen=True, slots=True)
class Numbers:
    """The numeric values of a list of scores and how many were excluded as not numbers."""

    values: tuple[float, ...]
    excluded: int


def as_number(value: Any) -> float | None:
    """Return a score value as a finite float, or None when it is not a measurement (read as
    the archive importer reads an Inspect log's score)."""
    return score_value(value)[0]


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
