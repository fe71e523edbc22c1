"""One row's value of a column: a number, a documented coercion, an exclusion, or a refusal.

A measurement failure is excluded even when it carries a number (an infra error's 0.0 is not an
agent's zero); missing and null values are excluded; strings in typed formats, non-finite
numbers and magnitudes above MAX_MAGNITUDE are refused with the file, line and column.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from agentmetrology.edges.display import short_repr
from agentmetrology.results.errors import TableError
from agentmetrology.results.exclusions import Coercions
from agentmetrology.results.table import ABSENT, ResultsTable

# Values beyond this magnitude are refused: sums of up to 1e200 of them, their differences and
# their squares all stay finite in float64, so no statistic can overflow to inf.
MAX_MAGNITUDE = 1e100
# Cells that mean "no value" in delimited text (compared case-insensitively after stripping).
_NULL_TEXT = frozenset({"", "na", "n/a", "null", "none"})
# A `status` beside the value with one of these says the value was never measured.
_FAILED_STATUSES = frozenset({"UNKNOWN", "INVALID"})
# Terminations that say nothing about the agent (records.MEASUREMENT_FAILURES, kept here as
# plain data so reading a results table does not depend on the record types).
_FAILED_TERMINATIONS = frozenset({"infra_error", "cancelled"})


@dataclass(frozen=True)
class Excluded:
    """Why a row's value is left out: `reason` is the counted category, `detail` says more."""

    reason: str
    detail: str | None = None


@dataclass(frozen=True)
class Coerced:
    """A value read with a documented coercion (a JSON boolean read as 1 or 0)."""

    number: float
    reason: str


def _sibling(name: str, field_name: str) -> str:
    """Return the dotted name of `field_name` next to column `name` (`a.b` -> `a.<field>`)."""
    parent, dot, _ = name.rpartition(".")
    return f"{parent}{dot}{field_name}"


def _failure_text(value: Any) -> str | None:
    """Return a measurement-failure marker's reason, or None when it marks no failure."""
    if value is True:
        return "measurement_failure"
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


@lru_cache(maxsize=256)
def _failure_columns(value: str) -> tuple[tuple[str, ...], str]:
    """Return the failure-marker columns and the status column read beside column `value`
    (the same for every row: named once, not once a row)."""
    markers = tuple(dict.fromkeys(["measurement_failure",
                                   _sibling(value, "measurement_failure")]))
    return markers, _sibling(value, "status")


def measurement_failure(table: ResultsTable, row: Mapping[str, Any], value: str) -> str | None:
    """Return why the row's `value` was not measured (failure marker or status), else None."""
    markers, status_column = _failure_columns(value)
    for name in markers:
        text = _failure_text(table.get(row, name))
        if text is not None:
            return text
    status = table.get(row, status_column)
    if isinstance(status, str) and status.strip().upper() in _FAILED_STATUSES:
        return f"status {status.strip().upper()}"
    termination = table.get(row, "termination")
    # compared case-insensitively, as the status is: `INFRA_ERROR` is no score either
    if isinstance(termination, str) and termination.strip().lower() in _FAILED_TERMINATIONS:
        return f"termination {termination.strip().lower()}"
    return None


def _refuse(table: ResultsTable, line: int, column: str, problem: str) -> TableError:
    """Return the error for a value that must not be read as a number."""
    return TableError(f"{table.source} line {line}: column {column!r} {problem}")


def _shown(value: Any) -> str:
    """Return a short printable form of a refused value."""
    return short_repr(value, 40)


def _from_text(table: ResultsTable, raw: str, line: int, column: str) -> float | Excluded:
    """Return a delimited-text cell as a number or a null; refuse text in typed formats."""
    if table.fmt not in ("csv", "tsv"):
        raise _refuse(
            table,
            line,
            column,
            f"holds the string {_shown(raw)}, not a number; "
            "write numbers unquoted, or null for a missing value",
        )
    if raw.strip().lower() in _NULL_TEXT:
        return Excluded("value null")
    try:
        return float(raw.strip())
    except ValueError:
        raise _refuse(
            table,
            line,
            column,
            f"holds {_shown(raw)}, not a number; "
            "leave the cell empty (or NA) for a missing value",
        ) from None


def _checked(table: ResultsTable, number: float, raw: Any, line: int, column: str) -> float:
    """Return `number`, or refuse it when it is not finite or beyond MAX_MAGNITUDE."""
    if not math.isfinite(number):
        raise _refuse(
            table,
            line,
            column,
            f"is not a finite number ({_shown(raw)}; NaN, Infinity and numbers too large "
            "for a float are refused); use null for a missing value",
        )
    if abs(number) > MAX_MAGNITUDE:
        raise _refuse(
            table,
            line,
            column,
            f"is {_shown(raw)}; values must lie within +/-{MAX_MAGNITUDE:g} so that sums "
            "and differences cannot overflow (rescale the column)",
        )
    # -0.0 + 0.0 is +0.0 (and every other number is unchanged): a cell written `-0` is the
    # score 0, and would otherwise print as a worst case or CVaR of "-0.000".
    return number + 0.0


def read_value(
    table: ResultsTable, row: Mapping[str, Any], line: int, column: str
) -> float | Coerced | Excluded:
    """Return the row's value of `column`, why it is excluded, or raise TableError if refused."""
    failure = measurement_failure(table, row, column)
    if failure is not None:
        return Excluded("measurement failure", failure)
    raw = table.get(row, column)
    if raw is ABSENT:
        return Excluded("value missing")
    if raw is None:
        return Excluded("value null")
    if isinstance(raw, bool):
        # Documented: a JSON pass/fail flag counts as 1/0; the rows are reported as coerced.
        return Coerced(1.0 if raw else 0.0, "boolean read as 1 (true) or 0 (false)")
    if isinstance(raw, str):
        got = _from_text(table, raw, line, column)
        if isinstance(got, Excluded):
            return got
        number = got
    elif isinstance(raw, int | float):
        try:
            number = float(raw)
        except OverflowError:
            number = math.inf if raw > 0 else -math.inf
    else:
        raise _refuse(
            table, line, column, f"holds a {type(raw).__name__} ({_shown(raw)}), not a number"
        )
    return _checked(table, number, raw, line, column)


def take_value(
    table: ResultsTable, row: Mapping[str, Any], line: int, column: str, coerced: Coercions
) -> float | Excluded:
    """Return the row's number (recording a coercion in `coerced`) or why it is excluded."""
    got = read_value(table, row, line, column)
    if isinstance(got, Coerced):
        coerced.add(got.reason, line)
        return got.number
    return got
