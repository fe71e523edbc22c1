"""A batch of parsed rows of one shape as columns, computed once for both scorers.

Both scorers read the same parsed data lines (the submission caches them); when every line is
an object with the same keys in the same order, the columns, and each column's one type when it
has one, answer most of what the scorers ask without a per-row loop.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Columns:
    """The keys every row has (in order), the value columns, and each column's types."""

    keys: tuple[str, ...]
    cols: tuple[tuple[Any, ...], ...]
    kinds: tuple[frozenset[type], ...]
    # The generated columns these were gathered from by the rows' own record ids, when known
    # (scoring/genuine.py): then each row equals its generated row, with nothing to compare.
    gathered_from: tuple[tuple[Any, ...], ...] | None = field(default=None, compare=False)
    # The columns' value sets made so far, by key: both scorers ask for the record ids'
    sets: dict[str, frozenset[Any]] = field(default_factory=dict, compare=False, repr=False)

    def column(self, key: str) -> tuple[Any, ...] | None:
        """Return the column of `key`, or None when the rows do not have it."""
        return self.cols[self.keys.index(key)] if key in self.keys else None

    def value_set(self, key: str) -> frozenset[Any]:
        """Return the distinct values of the column of `key` (a key the rows have); raise
        TypeError when one is unhashable, as building a set of them does."""
        found = self.sets.get(key)
        if found is None:
            found = self.sets[key] = frozenset(self.cols[self.keys.index(key)])
        return found


_LAST = threading.local()  # the last batch and its columns: one scorer asks after the other


def uniform_columns(values: Sequence[Any]) -> Columns | None:
    """Return the columns of a non-empty batch of dicts that all have the same keys, else None.

    A tuple batch (what parsing makes; the submission keeps its parse and nothing edits it) is
    remembered until the next one, so the second scorer asking gets the same columns.
    """
    last = getattr(_LAST, "entry", None)
    if last is not None and last[0] is values:
        return last[1]
    out = _columns(values)
    if type(values) is tuple:
        _LAST.entry = (values, out)  # holds the batch, so its id cannot be reused meanwhile
    return out


def remember_columns(values: tuple[Any, ...], columns: Columns) -> None:
    """Make `columns` the answer for the batch `values`, which the caller guarantees it is."""
    _LAST.entry = (values, columns)


def _columns(values: Sequence[Any]) -> Columns | None:
    if not values or set(map(type, values)) != {dict}:
        return None
    shapes = set(map(tuple, values))
    if len(shapes) != 1:
        return None
    cols = tuple(zip(*map(dict.values, values), strict=True))
    return Columns(shapes.pop(), cols, tuple(frozenset(map(type, col)) for col in cols))
