"""A results table in memory: one row per run, fields by flat name or dotted path.

In JSON a nested field is named by a dotted path such as `ground_truth.f1`; a flat column whose
name contains a dot (as a CSV header may) takes precedence over the path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from agentmetrology.results.errors import TableError


class _Absent:
    """Marker for a field that a row does not have at all (as opposed to a null value)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


@dataclass(frozen=True)
class ResultsTable:
    """Rows of a results file with the line (or row) number each came from."""

    source: str
    fmt: str
    rows: tuple[Mapping[str, Any], ...]
    line_numbers: tuple[int, ...]

    def get(self, row: Mapping[str, Any], name: str) -> Any:
        """Return the field `name` of `row` (flat key first, then dotted path), or ABSENT."""
        if name in row:
            return row[name]
        current: Any = row
        for part in name.split("."):
            if not isinstance(current, Mapping) or part not in current:
                return ABSENT
            current = current[part]
        return current

    def columns(self) -> list[str]:
        """Return every column name / dotted path present in at least one row, sorted."""
        names: set[str] = set()
        for row in self.rows:
            names.update(_paths(row, ""))
        return sorted(names)

    def require(self, names: Iterable[str]) -> None:
        """Raise TableError naming the first of `names` that no row has."""
        for name in names:
            if not any(self.get(row, name) is not ABSENT for row in self.rows):
                raise TableError(f"unknown column {name!r} in {self.source} "
                                 f"({_listed(self.columns())})")


def _listed(columns: list[str], most: int = 30) -> str:
    """Return the columns an error lists: at most `most`, saying how many more (or none)."""
    if not columns:
        return "its rows have no columns"  # '{}' rows: "(columns: )" read as a blank
    more = f", and {len(columns) - most} more" if len(columns) > most else ""
    return f"columns: {', '.join(columns[:most])}{more}"


def _paths(row: Mapping[str, Any], prefix: str) -> Iterator[str]:
    """Yield the dotted paths of all leaves and inner objects of a nested row."""
    for key, value in row.items():
        path = f"{prefix}{key}"
        yield path
        if isinstance(value, Mapping):
            yield from _paths(value, path + ".")


def label(value: Any) -> str | None:
    """Return a group / key label for a field value, or None when the field is missing."""
    if value is None or value is ABSENT:
        return None
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, Mapping | list):
        return json.dumps(value, sort_keys=True)
    return str(value)
