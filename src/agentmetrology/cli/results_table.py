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


def parse_number(value: Any) -> float | None:
    """Return `value` as a finite float, or None when missing, blank, non-numeric or non-finite."""
    if value is None or value is ABSENT:
        return None
    if isinstance(value, bool):  # a JSON pass/fail flag counts as 1/0
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def label(value: Any) -> str | None:
    """Return a group / key label for a field value, or None when the field is missing."""
    if value is None or value is ABSENT:
        return None
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, Mapping | list):
        return json.dumps(value, sort_keys=True)
    return str(value)


def split_names(text: str, option: str) -> list[str]:
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


def _parse_jsonl(text: str, source: str) -> tuple[list[dict[str, Any]], list[int]]:
    """Parse JSON Lines: one object per non-blank line."""
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TableError(f"{source} line {number}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise TableError(f"{source} line {number}: expected a JSON object per line")
        rows.append(obj)
        lines.append(number)
    return rows, lines


def _parse_json_array(text: str, source: str) -> tuple[list[dict[str, Any]], list[int]]:
    """Parse a JSON array of objects; 'line numbers' are 1-based element positions."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TableError(f"{source} line {exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise TableError(f"{source}: expected a JSON array of objects")
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


@dataclass
class Exclusions:
    """Rows left out of the analysis, by reason, with their line numbers."""

    reasons: dict[str, list[int]] = field(default_factory=dict)

    def add(self, reason: str, line: int) -> None:
        """Record that the row on `line` was excluded for `reason`."""
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


def collect_groups(
    table: ResultsTable, value: str, groups: list[str]
) -> tuple[dict[tuple[str, ...], list[float]], Exclusions]:
    """Return the numeric values per group key and the rows excluded (with reasons)."""
    collected: dict[tuple[str, ...], list[float]] = {}
    excluded = Exclusions()
    for row, line in zip(table.rows, table.line_numbers, strict=True):
        key = tuple(label(table.get(row, g)) for g in groups)
        number = parse_number(table.get(row, value))
        if any(part is None for part in key):
            excluded.add(f"missing {','.join(groups)}", line)
        elif number is None:
            excluded.add(f"missing or non-numeric {value}", line)
        else:
            collected.setdefault(tuple(str(p) for p in key), []).append(number)
    return collected, excluded


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


def collect_pairs(table: ResultsTable, spec: PairSpec) -> tuple[Pairing, Pairing, Exclusions]:
    """Return A's and B's values keyed by the pair-by columns, and the rows excluded."""
    sides: dict[str, Pairing] = {spec.a: {}, spec.b: {}}
    excluded = Exclusions()
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
        number = parse_number(table.get(row, spec.value))
        if any(part is None for part in key) or cl is None or st is None:
            excluded.add("missing pair-by, cluster or strata field", line)
        elif number is None:
            excluded.add(f"missing or non-numeric {spec.value}", line)
        elif key in side:
            raise TableError(
                f"line {line}: a second row for pair {', '.join(map(str, key))} in one group; "
                "add columns to --pair-by so each pair is unique"
            )
        else:
            side[tuple(str(p) for p in key)] = (number, cl or None, st or None)
    return sides[spec.a], sides[spec.b], excluded


def align_pairs(a_side: Pairing, b_side: Pairing) -> tuple[list[tuple[str, ...]], dict[str, Any]]:
    """Return the complete pair keys (sorted) and the counts of incomplete pairs."""
    complete = sorted(set(a_side) & set(b_side))
    only_a = sorted(set(a_side) - set(b_side))
    only_b = sorted(set(b_side) - set(a_side))
    for key in complete:
        if a_side[key][1:] != b_side[key][1:]:
            raise TableError(
                f"pair {', '.join(key)} has a different cluster or stratum in A and B; "
                "make --cluster/--strata part of the pair or constant within it"
            )
    counts = {
        "complete": len(complete),
        "incomplete": len(only_a) + len(only_b),
        "only_a": len(only_a),
        "only_b": len(only_b),
        "examples_only_a": [list(k) for k in only_a[:10]],
        "examples_only_b": [list(k) for k in only_b[:10]],
    }
    return complete, counts
