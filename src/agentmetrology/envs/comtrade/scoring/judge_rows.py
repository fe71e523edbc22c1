"""The shape judge's row-level terms as one-pass tallies, fed the data lines in batches.

The judge reads the data lines for five things: the line count, the dedup ratio under the
declared key, the share of valid rows, type consistency and the value-range checks
(docs/scoring.md, "The shape judge"). Every one is a count or a set union, so `RowTally` can take
the lines in any number of batches (one for an in-memory submission, many for a streamed file)
and give the same numbers: the range sums are counts of ones and halves, exact in a float.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from operator import itemgetter
from typing import Any, Final

from agentmetrology.envs.comtrade.scoring.columns import Columns, uniform_columns

VALUE_FIELDS: Final = ("value", "trade_value", "tradeValue", "primaryValue")
QUANTITY_FIELDS: Final = ("qty", "quantity", "netWgt")
_RANGE_FIELDS: Final = frozenset(("year", *VALUE_FIELDS, *QUANTITY_FIELDS))
_NONE: Final = type(None)
# Types whose values are hashable as they are (what a parsed JSON scalar is)
_HASHABLE: Final = frozenset((int, float, str, bool, _NONE))
# Past this many distinct dedup keys the key values are shared through a small memo (equal
# values, so set membership is unchanged): a streamed million-row file then stores one copy of
# each repeated year/reporter/flow instead of one per line.
_SHARE_AFTER: Final = 50_000
_MEMO_SIZE: Final = 4096


def _freeze(v: object) -> object:
    """Return a hashable stand-in for a parsed JSON value (objects and arrays by content)."""
    if isinstance(v, dict | list):
        try:
            return ("json", json.dumps(v, sort_keys=True, ensure_ascii=False))
        except (RecursionError, ValueError):
            return ("id", id(v))
    return v


def valid_dedup_key(dedup_key: object) -> list[str] | None:
    """Return the declared dedup key when it is a list of >= 3 names, else None (0 points)."""
    if (isinstance(dedup_key, list) and len(dedup_key) >= 3
            and all(isinstance(k, str) for k in dedup_key)):
        return dedup_key
    return None


def _numbers_in(col: Sequence[Any], kind: type | None, lo: int, hi: int | None = None) -> int:
    """Return how many values of col are an int or float in [lo, hi]; kind: their one type."""
    if kind is int and col and lo <= min(col) and (hi is None or max(col) <= hi):
        return len(col)  # all ints, all within: the usual column, without a loop
    if kind is not None and kind is not int and kind is not float:
        return 0
    return sum(1 for v in col if (type(v) is int or type(v) is float)
               and lo <= v and (hi is None or v <= hi))


class RowTally:
    """Counts and sets of the data lines the judge's terms need, accumulated batch by batch."""

    __slots__ = (
        "_counts",
        "_deferred",
        "_half",
        "_keys",
        "_memo",
        "_names",
        "_pick",
        "key_fields",
        "lines",
        "objects",
        "schema",
        "shapes",
        "year",
    )

    def __init__(self, dedup_key: object, schema: object, year: int) -> None:
        self.key_fields = valid_dedup_key(dedup_key)
        self._pick = itemgetter(*self.key_fields) if self.key_fields else None
        self.schema: list[Any] = schema if isinstance(schema, list) else []
        self._names = [k for k in self.schema if isinstance(k, str)]
        self._half = len(self.schema) / 2
        self.year = year
        self.lines = 0  # every non-blank line
        self.objects = 0  # lines that are JSON objects
        self._keys: set[tuple[object, ...]] = set()
        # A first batch's key columns whose keys are known distinct: the set is built from
        # them only when asked for it or when another batch comes (see _keys_of)
        self._deferred: tuple[tuple[Any, ...], ...] | None = None
        # objects per shape (their keys and value types): rows nearly always share a few
        # shapes, and the valid-row and type terms depend on the shape only
        self.shapes: Counter[tuple[tuple[str, ...], tuple[type, ...]]] = Counter()
        # year count/passed/bonus, value count/passed, quantity count/passed
        self._counts = [0, 0, 0, 0, 0, 0, 0]
        self._memo: dict[object, object] = {}

    def add(self, values: Sequence[Any]) -> None:
        """Absorb one batch of parsed lines (NOT_JSON and non-objects count as lines only)."""
        c = uniform_columns(values)
        rows = [v for v in values if type(v) is dict] if c is None else values
        self.lines += len(values)
        self.objects += len(rows)
        if self._pick is not None:
            self._keys_of(rows, c)
        if c is not None and all(len(k) == 1 for k in c.kinds):
            # one shape: one count, and range checks on columns of a known type
            types = tuple(next(iter(k)) for k in c.kinds)
            self.shapes[(c.keys, types)] += len(rows)
            self._add_ranges({k: (col, t) for k, col, t in zip(c.keys, c.cols, types, strict=True)
                              if k in _RANGE_FIELDS})
            return
        batch: Counter[tuple[tuple[str, ...], tuple[type, ...]]] = Counter(
            zip(map(tuple, rows), [tuple(map(type, r.values())) for r in rows], strict=True))
        self.shapes.update(batch)
        present: set[str] = set()
        for keys, _ in batch:
            present.update(keys)
        self._add_ranges({k: ([r[k] for r in rows if k in r], None)
                          for k in present if k in _RANGE_FIELDS})

    @property
    def keys(self) -> set[tuple[object, ...]]:
        """Return the distinct dedup keys of the lines so far."""
        if self._deferred is not None:
            cols, self._deferred = self._deferred, None
            self._keys.update(zip(*cols, strict=True))
        return self._keys

    def _keys_of(self, rows: Sequence[dict[str, Any]], c: Columns | None) -> None:
        """Absorb a batch's dedup keys; a first batch whose keys are all distinct only keeps
        its key columns, as the count is then its row count.

        The keys are distinct when the last key field's column (where an id usually is) holds
        no value twice: tuples that differ in one place differ. Every value must be of a
        hashable type (a set of them is built later), as in _add_keys' usual batch.
        """
        fields = self.key_fields
        if (c is None or self._deferred is not None or self._keys or fields is None
                or not all(f in c.keys for f in fields)):
            self._add_keys(rows, c)
            return
        at = [c.keys.index(f) for f in fields]
        last = c.cols[at[-1]]
        # the set of the record ids (the usual last field) is ground truth's, made before
        if (all(c.kinds[i] <= _HASHABLE for i in at)
                and len(c.value_set(fields[-1])) == len(last)):
            self._deferred = tuple(c.cols[i] for i in at)
            return
        self._add_keys(rows, c)

    def _key_count(self) -> int:
        """Return the number of distinct dedup keys so far (without building a deferred set)."""
        return len(self._deferred[0]) if self._deferred is not None else len(self._keys)

    def _add_keys(self, rows: Sequence[dict[str, Any]], c: Columns | None) -> None:
        keys, pick = self.keys, self._pick
        assert pick is not None and self.key_fields is not None
        fields = self.key_fields
        share = len(keys) >= _SHARE_AFTER
        if not share:
            try:  # the usual batch: every key field present and hashable
                if c is not None and all(f in c.keys for f in fields):
                    keys.update(zip(*map(c.column, fields), strict=True))
                else:
                    keys.update(map(pick, rows))
                return
            except (KeyError, TypeError):  # the loop adds the rest (re-adding to a set: no harm)
                pass
        memo = self._memo
        for row in rows:
            try:
                key = pick(row)
            except KeyError:  # a missing field counts as null, as with row.get
                key = tuple(map(row.get, fields))
            try:
                if share:
                    key = tuple(map(memo.get, key, key))
                    if len(memo) < _MEMO_SIZE:
                        for v in key:
                            memo.setdefault(v, v)
                keys.add(key)
            except TypeError:  # an object or array value under a key field
                keys.add(tuple(_freeze(v) for v in key))

    def _add_ranges(self, columns: dict[str, tuple[Sequence[Any], type | None]]) -> None:
        """Count the range checks of the present fields' columns (values, and their one type
        or None when mixed); a field no row of the batch has adds nothing."""
        c, year = self._counts, self.year
        if "year" in columns:
            years, kind = columns["year"]
            c[0] += len(years)
            c[1] += _numbers_in(years, kind, 1900, 2100)
            if kind is int:
                c[2] += years.count(year)  # the bonus: +0.5 to both passed and total
            elif kind is None or kind is float:
                c[2] += sum(1 for y in years if (type(y) is int or type(y) is float) and y == year)
        for k in VALUE_FIELDS:
            if k in columns:
                vals, kind = columns[k]
                c[3] += len(vals)
                c[4] += _numbers_in(vals, kind, 0)
        for k in QUANTITY_FIELDS:
            if k in columns:
                vals, kind = columns[k]
                c[5] += len(vals)
                nulls = len(vals) if kind is _NONE else (
                    sum(1 for v in vals if v is None) if kind is None else 0)
                c[6] += nulls + _numbers_in(vals, kind, 0)

    # ---- the terms ----------------------------------------------------------------------------

    def dedup_points(self) -> float:
        """Return 6 * unique/total under a declared key of >= 3 names (6 if empty, 0 if invalid)."""
        if self.key_fields is None:
            return 0.0
        if not self.lines:
            return 6.0
        return 6.0 * self._key_count() / self.lines

    def valid_row_ratio(self) -> float:
        """Return the share of lines that are objects carrying >= half the schema names."""
        if self.lines == 0:
            return 0.0
        if not self.schema:
            return self.objects / self.lines
        names, half = self._names, self._half
        good = 0
        for (keys, _), count in self.shapes.items():
            if sum(map(keys.__contains__, names)) >= half:  # a row's keys are its shape's
                good += count
        return good / self.lines

    def type_consistency(self) -> float:
        """Return the share of fields whose non-null values all have one Python type (0 if none)."""
        types: dict[str, set[type]] = {}
        for keys, kinds in self.shapes:  # the distinct shapes
            for k, t in zip(keys, kinds, strict=True):
                seen = types.setdefault(k, set())
                if t is not _NONE:
                    seen.add(t)
        if not types:
            return 0.0
        return sum(1 for t in types.values() if len(t) <= 1) / len(types)

    def value_ranges(self) -> float:
        """Return the share of passed range checks (year, values, quantities; 1.0 if none)."""
        c = self._counts
        passed = float(c[1] + c[4] + c[6]) + 0.5 * c[2]
        total = float(c[0] + c[3] + c[5]) + 0.5 * c[2]
        return passed / total if total else 1.0


def tally(values: Sequence[Any], dedup_key: object = None, schema: object = None,
          year: int = 0) -> RowTally:
    """Return the RowTally of one batch of parsed lines."""
    t = RowTally(dedup_key, schema, year)
    t.add(values)
    return t


def dedup_points(dedup_key: object, values: tuple[Any, ...]) -> float:
    """Return 6 * unique/total under a declared key of >= 3 names (6 if empty, 0 if invalid)."""
    return tally(values, dedup_key).dedup_points()


def valid_row_ratio(rows: list[dict[str, Any]], n: int, schema: list[Any]) -> float:
    """Return the share of n lines that are objects carrying >= half the schema names."""
    t = tally(rows, schema=schema)
    t.lines = n  # the caller's line count includes lines that are not objects
    return t.valid_row_ratio()


def type_consistency(rows: list[dict[str, Any]]) -> float:
    """Return the share of fields whose non-null values all have one Python type (0 if none)."""
    return tally(rows).type_consistency()


def value_ranges(rows: list[dict[str, Any]], year: int) -> float:
    """Return the share of passed range checks (year, values, quantities; 1.0 if none apply)."""
    return tally(rows, year=year).value_ranges()
