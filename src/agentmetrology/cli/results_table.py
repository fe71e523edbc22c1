"""Read a results table (CSV, TSV, JSON Lines, JSON array, or Parquet) for `agm stats`, and
turn its rows into groups or pairs of numbers, recording every row left out and why.

One row per run. In JSON a nested field is named by a dotted path such as `ground_truth.f1`;
a flat column whose name contains a dot (as a CSV header may) takes precedence over the path.
Parquet needs the optional dependency pyarrow, imported only when a Parquet file is read.
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class TableError(Exception):
    """A results table that cannot be read or used; the message says what to do."""


class _Absent:
    """Marker for a field that a row does not have at all (as opposed to a null value)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()
_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".parquet": "parquet",
    ".pq": "parquet",
}


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
                known = ", ".join(self.columns()[:30])
                raise TableError(f"unknown column {name!r} in {self.source} (columns: {known})")


def _paths(row: Mapping[str, Any], prefix: str) -> Iterator[str]:
    """Yield the dotted paths of all leaves and inner objects of a nested row."""
    for key, value in row.items():
        path = f"{prefix}{key}"
        yield path
        if isinstance(value, Mapping):
            yield from _paths(value, path + ".")


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


def measurement_failure(table: ResultsTable, row: Mapping[str, Any], value: str) -> str | None:
    """Return why the row's `value` was not measured (failure marker or status), else None."""
    for name in dict.fromkeys(["measurement_failure", _sibling(value, "measurement_failure")]):
        text = _failure_text(table.get(row, name))
        if text is not None:
            return text
    status = table.get(row, _sibling(value, "status"))
    if isinstance(status, str) and status.strip().upper() in _FAILED_STATUSES:
        return f"status {status.strip().upper()}"
    termination = table.get(row, "termination")
    if isinstance(termination, str) and termination.strip() in _FAILED_TERMINATIONS:
        return f"termination {termination.strip()}"
    return None


def _refuse(table: ResultsTable, line: int, column: str, problem: str) -> TableError:
    """Return the error for a value that must not be read as a number."""
    return TableError(f"{table.source} line {line}: column {column!r} {problem}")


def _shown(value: Any) -> str:
    """Return a short printable form of a refused value."""
    try:
        text = repr(value)
    except ValueError:  # an integer beyond Python's digit limit for str()
        return "an integer too long to print"
    return text if len(text) <= 40 else text[:37] + "..."


def read_value(
    table: ResultsTable, row: Mapping[str, Any], line: int, column: str
) -> float | Coerced | Excluded:
    """Return the row's value of `column`, why it is excluded, or raise TableError if refused.

    A measurement failure is excluded even when it carries a number (an infra error's 0.0 is
    not an agent's zero). Missing and null values are excluded. Strings in typed formats (JSON,
    Parquet), non-finite numbers and magnitudes above MAX_MAGNITUDE are refused.
    """
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
            number = float(raw.strip())
        except ValueError:
            raise _refuse(
                table,
                line,
                column,
                f"holds {_shown(raw)}, not a number; "
                "leave the cell empty (or NA) for a missing value",
            ) from None
    elif isinstance(raw, int | float):
        try:
            number = float(raw)
        except OverflowError:
            number = math.inf if raw > 0 else -math.inf
    else:
        raise _refuse(
            table, line, column, f"holds a {type(raw).__name__} ({_shown(raw)}), not a number"
        )
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
    return number


def label(value: Any) -> str | None:
    """Return a group / key label for a field value, or None when the field is missing."""
    if value is None or value is ABSENT:
        return None
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, Mapping | list):
        return json.dumps(value, sort_keys=True)
    return str(value)


def split_column_names(text: str, option: str) -> list[str]:
    """Split a comma-separated list of column names, rejecting empty names."""
    names = [part.strip() for part in text.split(",")]
    if not text.strip() or any(not name for name in names):
        raise TableError(f"{option} needs comma-separated column names, got {text!r}")
    return names


def read_results(path: str | Path) -> ResultsTable:
    """Read a results file (format from its suffix, else sniffed); '-' reads stdin."""
    if str(path) == "-":
        return _parse_text(sys.stdin.read(), "<stdin>", None)
    p = Path(path)
    fmt = _SUFFIXES.get(p.suffix.lower())
    if not p.exists():
        raise TableError(f"{p}: no such file")
    if p.is_dir():
        raise TableError(f"{p}: is a directory, not a results file")
    if fmt == "parquet":
        return _read_parquet(p)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise TableError(f"{p}: not UTF-8 text (for Parquet use a .parquet suffix)") from None
    except OSError as exc:
        raise TableError(f"{p}: cannot read ({exc.strerror or exc})") from None
    return _parse_text(text, str(p), fmt)


def _parse_text(text: str, source: str, fmt: str | None) -> ResultsTable:
    """Parse text as the given format, or sniff JSON vs CSV from its first character."""
    if fmt is None:
        first = text.lstrip()[:1]
        fmt = "jsonl" if first == "{" else "json" if first == "[" else "csv"
    if fmt in ("csv", "tsv"):
        rows, lines = _parse_csv(text, source, "\t" if fmt == "tsv" else ",")
    elif fmt == "json" and text.lstrip().startswith("["):
        rows, lines = _parse_json_array(text, source)
    else:
        rows, lines = _parse_jsonl(text, source)
        fmt = "jsonl"
    if not rows:
        raise TableError(f"{source}: no rows")
    return ResultsTable(source=source, fmt=fmt, rows=tuple(rows), line_numbers=tuple(lines))


def _parse_csv(text: str, source: str, delimiter: str) -> tuple[list[dict[str, Any]], list[int]]:
    """Parse delimited text with a header row; line numbers count the header as line 1."""
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    try:
        for row in reader:
            rows.append({k: v for k, v in row.items() if k is not None})
            lines.append(reader.line_num)
    except csv.Error as exc:
        raise TableError(f"{source} line {reader.line_num}: malformed CSV ({exc})") from None
    if not reader.fieldnames:
        raise TableError(f"{source}: no header row")
    return rows, lines


MAX_DEPTH = 32  # nesting levels of a JSON row; results rows need a handful


def _loads(text: str, source: str, line: int | None) -> Any:
    """Parse JSON text, turning every way it can fail into a TableError with the line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TableError(
            f"{source} line {line or exc.lineno}: not valid JSON ({exc.msg})"
        ) from None
    except RecursionError:
        where = "?" if line is None else str(line)
        raise TableError(
            f"{source} line {where}: JSON nested too deeply to read "
            f"(rows may nest at most {MAX_DEPTH} levels); flatten the row"
        ) from None
    except ValueError as exc:  # e.g. an integer literal beyond Python's digit limit
        where = "?" if line is None else str(line)
        raise TableError(f"{source} line {where}: unreadable JSON number ({exc})") from None


def _check_depth(obj: Any, source: str, line: int) -> None:
    """Raise TableError if `obj` nests objects or arrays deeper than MAX_DEPTH levels."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise TableError(
                f"{source} line {line}: JSON nested more than {MAX_DEPTH} levels deep; "
                "flatten the row"
            )
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))


def _parse_jsonl(text: str, source: str) -> tuple[list[dict[str, Any]], list[int]]:
    """Parse JSON Lines: one object per non-blank line."""
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        obj = _loads(line, source, number)
        if not isinstance(obj, dict):
            raise TableError(f"{source} line {number}: expected a JSON object per line")
        _check_depth(obj, source, number)
        rows.append(obj)
        lines.append(number)
    return rows, lines


def _parse_json_array(text: str, source: str) -> tuple[list[dict[str, Any]], list[int]]:
    """Parse a JSON array of objects; 'line numbers' are 1-based element positions."""
    data = _loads(text, source, None)
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise TableError(f"{source}: expected a JSON array of objects")
    for position, item in enumerate(data, start=1):
        _check_depth(item, source, position)
    return list(data), list(range(1, len(data) + 1))


def _read_parquet(path: Path) -> ResultsTable:
    """Read a Parquet file with pyarrow (optional dependency), nested structs kept as objects."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise TableError(
            f"{path}: reading Parquet needs pyarrow; install it with `pip install pyarrow` "
            "(or `pip install agentmetrology[parquet]`), or convert the file to CSV/JSONL"
        ) from None
    try:
        rows: Sequence[dict[str, Any]] = pq.read_table(path).to_pylist()
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise TableError(f"{path}: cannot read as Parquet ({type(exc).__name__}: {exc})") from None
    if not rows:
        raise TableError(f"{path}: no rows")
    return ResultsTable(
        source=str(path),
        fmt="parquet",
        rows=tuple(rows),
        line_numbers=tuple(range(1, len(rows) + 1)),
    )


# --------------------------------------------------------------------------- rows to data

_MAX_LINES = 50  # line numbers listed per exclusion reason; the count is always complete
_MAX_DETAILS = 20  # distinct failure details listed per reason; the count is always complete


@dataclass
class Exclusions:
    """Rows left out of the analysis, by reason, with their line numbers and details."""

    reasons: dict[str, list[int]] = field(default_factory=dict)
    details: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, reason: str, line: int, detail: str | None = None) -> None:
        """Record that the row on `line` was excluded for `reason` (with an optional detail)."""
        self.reasons.setdefault(reason, []).append(line)
        if detail is not None:
            counts = self.details.setdefault(reason, {})
            counts[detail] = counts.get(detail, 0) + 1

    @property
    def count(self) -> int:
        """Return the number of excluded rows."""
        return sum(len(lines) for lines in self.reasons.values())

    def to_dict(self) -> dict[str, Any]:
        """Return the count and, per reason, its count, first line numbers and details."""
        by_reason: dict[str, Any] = {}
        for reason, lines in sorted(self.reasons.items()):
            entry: dict[str, Any] = {"count": len(lines), "lines": lines[:_MAX_LINES]}
            if reason in self.details:
                top = sorted(self.details[reason].items(), key=lambda kv: (-kv[1], kv[0]))
                entry["details"] = dict(top[:_MAX_DETAILS])
            by_reason[reason] = entry
        return {"count": self.count, "by_reason": by_reason}


def describe(excluded: Mapping[str, Any]) -> str:
    """Return e.g. 'excluded 3 rows: 2 value null, 1 measurement failure' for an exclusions doc."""
    count = excluded["count"]
    parts = [f"{info['count']} {reason}" for reason, info in excluded["by_reason"].items()]
    noun = "row" if count == 1 else "rows"
    return f"excluded {count} {noun}: {', '.join(parts)}" if count else "excluded 0 rows"


@dataclass
class Coercions:
    """Rows whose value was read through a documented coercion, by reason."""

    reasons: dict[str, list[int]] = field(default_factory=dict)

    def add(self, reason: str, line: int) -> None:
        """Record that the value on `line` was coerced for `reason`."""
        self.reasons.setdefault(reason, []).append(line)

    def to_dict(self) -> dict[str, Any]:
        """Return the count and, per reason, its count and first line numbers."""
        return {
            "count": sum(len(lines) for lines in self.reasons.values()),
            "by_reason": {
                reason: {"count": len(lines), "lines": lines[:_MAX_LINES]}
                for reason, lines in sorted(self.reasons.items())
            },
        }


@dataclass
class Groups:
    """Values per group key, with the rows excluded from each group and from no group."""

    values: dict[tuple[str, ...], list[float]] = field(default_factory=dict)
    excluded: Exclusions = field(default_factory=Exclusions)
    by_group: dict[tuple[str, ...], Exclusions] = field(default_factory=dict)
    coerced: Coercions = field(default_factory=Coercions)


def _take(
    table: ResultsTable,
    row: Mapping[str, Any],
    line: int,
    column: str,
    coerced: Coercions,
) -> float | Excluded:
    """Return the row's number (recording a coercion) or why it is excluded."""
    got = read_value(table, row, line, column)
    if isinstance(got, Coerced):
        coerced.add(got.reason, line)
        return got.number
    return got


def collect_groups(table: ResultsTable, value: str, groups: list[str]) -> Groups:
    """Return the numeric values per group key and the rows excluded (with reasons)."""
    out = Groups()
    for row, line in zip(table.rows, table.line_numbers, strict=True):
        key = tuple(label(table.get(row, g)) for g in groups)
        if any(part is None for part in key):
            out.excluded.add(f"missing {','.join(groups)}", line)
            continue
        skey = tuple(str(p) for p in key)
        got = _take(table, row, line, value, out.coerced)
        if isinstance(got, Excluded):
            out.excluded.add(got.reason, line, got.detail)
            out.by_group.setdefault(skey, Exclusions()).add(got.reason, line, got.detail)
            out.values.setdefault(skey, [])
        else:
            out.values.setdefault(skey, []).append(got)
    return out


Pairing = dict[tuple[str, ...], tuple[float, str | None, str | None]]


@dataclass(frozen=True)
class PairSpec:
    """Which columns define a comparison."""

    value: str
    group: str
    a: str
    b: str
    pair_by: list[str]
    cluster: str | None
    strata: str | None


@dataclass
class PairSide:
    """One group's values by pair key, and the pair keys of its excluded rows."""

    values: Pairing = field(default_factory=dict)
    excluded_keys: set[tuple[str, ...]] = field(default_factory=set)
    excluded: Exclusions = field(default_factory=Exclusions)


@dataclass
class Pairs:
    """A's and B's sides of a comparison, and the rows excluded from either or from both."""

    a: PairSide
    b: PairSide
    excluded: Exclusions
    coerced: Coercions


def check_groups(table: ResultsTable, spec: PairSpec) -> None:
    """Raise TableError unless both group names occur in the group column and differ."""
    if spec.a == spec.b:
        raise TableError(f"--a and --b must name different groups, both are {spec.a!r}")
    present = {label(table.get(row, spec.group)) for row in table.rows} - {None}
    for option, name in (("--a", spec.a), ("--b", spec.b)):
        if name not in present:
            shown = ", ".join(sorted(str(p) for p in present)[:20])
            raise TableError(
                f"{option} group {name!r} not found in column {spec.group!r} (values: {shown})"
            )


def collect_pairs(table: ResultsTable, spec: PairSpec) -> Pairs:
    """Return A's and B's values keyed by the pair-by columns, and the rows excluded."""
    sides = {spec.a: PairSide(), spec.b: PairSide()}
    excluded = Exclusions()
    coerced = Coercions()
    for row, line in zip(table.rows, table.line_numbers, strict=True):
        name = label(table.get(row, spec.group))
        if name is None:
            excluded.add(f"missing {spec.group}", line)
            continue
        side = sides.get(name)
        if side is None:
            continue  # a row of some other group: not part of this comparison
        key = tuple(label(table.get(row, col)) for col in spec.pair_by)
        cl = label(table.get(row, spec.cluster)) if spec.cluster else ""
        st = label(table.get(row, spec.strata)) if spec.strata else ""
        if any(part is None for part in key) or cl is None or st is None:
            excluded.add("missing pair-by, cluster or strata field", line)
            side.excluded.add("missing pair-by, cluster or strata field", line)
            continue
        skey = tuple(str(p) for p in key)
        got = _take(table, row, line, spec.value, coerced)
        if isinstance(got, Excluded):
            excluded.add(got.reason, line, got.detail)
            side.excluded.add(got.reason, line, got.detail)
            side.excluded_keys.add(skey)
        elif skey in side.values:
            raise TableError(
                f"line {line}: a second row for pair {', '.join(skey)} in one group; "
                "add columns to --pair-by so each pair is unique"
            )
        else:
            side.values[skey] = (got, cl or None, st or None)
    return Pairs(a=sides[spec.a], b=sides[spec.b], excluded=excluded, coerced=coerced)


def align_pairs(pairs: Pairs) -> tuple[list[tuple[str, ...]], dict[str, Any]]:
    """Return the complete pair keys (sorted) and the counts of pairs dropped, and why.

    A pair is dropped because of an exclusion when one side's row for its key was excluded
    (e.g. a measurement failure); it is incomplete when one side has no row for the key at all.
    """
    a_side, b_side = pairs.a.values, pairs.b.values
    complete = sorted(set(a_side) & set(b_side))
    for key in complete:
        if a_side[key][1:] != b_side[key][1:]:
            raise TableError(
                f"pair {', '.join(key)} has a different cluster or stratum in A and B; "
                "make --cluster/--strata part of the pair or constant within it"
            )
    a_excl, b_excl = pairs.a.excluded_keys - set(a_side), pairs.b.excluded_keys - set(b_side)
    a_seen, b_seen = set(a_side) | a_excl, set(b_side) | b_excl
    # A key with an excluded row on either side is dropped because of the exclusion, whether
    # the other side was usable, excluded too, or absent.
    dropped = sorted(a_excl | b_excl)
    only_a = sorted(set(a_side) - b_seen)
    only_b = sorted(set(b_side) - a_seen)
    counts = {
        "complete": len(complete),
        "incomplete": len(only_a) + len(only_b),
        "only_a": len(only_a),
        "only_b": len(only_b),
        "examples_only_a": [list(k) for k in only_a[:10]],
        "examples_only_b": [list(k) for k in only_b[:10]],
        "dropped_excluded": len(dropped),
        "excluded_a": len(a_excl),
        "excluded_b": len(b_excl),
        "examples_dropped_excluded": [list(k) for k in dropped[:10]],
    }
    return complete, counts
