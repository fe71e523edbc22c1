"""Problems found in a campaign file, each with its location, and a collector that checks values.

Validation never stops at the first problem: every check appends to one list, so a user fixes
the whole file in one pass.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning"]
_MISSING = object()


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem: where (a dotted path and, when known, a line), what, and how serious."""

    location: str
    message: str
    severity: Severity = "error"
    line: int | None = None
    column: int | None = None

    def render(self, file: str) -> str:
        """Return `file[:line[:col]]: location: message` (warnings say so)."""
        where = file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        tag = "warning: " if self.severity == "warning" else ""
        loc = f"{self.location}: " if self.location else ""
        return f"{where}: {tag}{loc}{self.message}"


class CampaignConfigError(ValueError):
    """Raised with every problem of a campaign file at once."""

    def __init__(self, file: str, problems: list[Problem]) -> None:
        self.file = file
        self.problems = problems
        super().__init__("\n".join(p.render(file) for p in problems))


def locate(source: str, location: str) -> int | None:
    """Return the 1-based line of a dotted location like `targets[2].kind`, when findable."""
    m = re.fullmatch(r"(\w+)(?:\[(\d+)\])?(?:\.([\w-]+))?.*", location)
    if m is None:
        return None
    table, index, key = m.group(1), m.group(2), m.group(3)
    lines = source.splitlines()
    header = re.compile(rf"^\s*\[\[\s*{table}\s*\]\]" if index is not None
                        else rf"^\s*\[\s*{table}\s*\]")
    starts = [i for i, line in enumerate(lines) if header.match(line)]
    nth = int(index) if index is not None else 0
    if nth >= len(starts):
        return None
    start = starts[nth]
    if key is None:
        return start + 1
    pat = re.compile(rf'^\s*"?{re.escape(key)}"?\s*=')
    for i in range(start + 1, len(lines)):
        if re.match(r"^\s*\[", lines[i]):
            break
        if pat.match(lines[i]):
            return i + 1
    return start + 1


@dataclass(slots=True)
class Checker:
    """Collects problems while reading values out of parsed TOML."""

    source: str = ""
    problems: list[Problem] = field(default_factory=list)

    def error(self, location: str, message: str) -> None:
        """Record an error at `location`."""
        self.problems.append(Problem(location, message, "error", locate(self.source, location)))

    def warn(self, location: str, message: str) -> None:
        """Record a warning at `location`."""
        self.problems.append(Problem(location, message, "warning", locate(self.source, location)))

    @property
    def errors(self) -> list[Problem]:
        """Return the errors (warnings excluded)."""
        return [p for p in self.problems if p.severity == "error"]

    def keys(self, table: Mapping[str, Any], where: str, allowed: Iterable[str]) -> None:
        """Report every key of `table` that is not allowed, with a close match when one exists."""
        allowed = list(allowed)
        for k in table:
            if k not in allowed:
                close = difflib.get_close_matches(k, allowed, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else \
                    f" (allowed: {', '.join(allowed)})"
                self.error(_join(where, k), f"unknown key{hint}")

    def table(self, parent: Mapping[str, Any], key: str, where: str,
              required: bool = False) -> dict[str, Any]:
        """Return a sub-table (or {}), reporting a missing or non-table value."""
        value = parent.get(key, _MISSING)
        if value is _MISSING:
            if required:
                self.error(_join(where, key), "missing table")
            return {}
        if not isinstance(value, dict):
            self.error(_join(where, key), f"expected a table, got {_kind(value)}")
            return {}
        return value

    def string(self, t: Mapping[str, Any], key: str, where: str, *, required: bool = False,
               default: str | None = None, choices: Iterable[str] | None = None,
               pattern: str | None = None, what: str = "") -> str | None:
        """Return a string value or `default`, reporting type, choice and pattern problems."""
        value = t.get(key, _MISSING)
        loc = _join(where, key)
        if value is _MISSING:
            if required:
                self.error(loc, "missing (required)")
            return default
        if not isinstance(value, str):
            self.error(loc, f"expected a string, got {_kind(value)}")
            return default
        if choices is not None and value not in (opts := list(choices)):
            self.error(loc, f"unknown {what or key} {value!r} (expected {', '.join(opts)})")
            return default
        if pattern is not None and not re.fullmatch(pattern, value):
            self.error(loc, f"{value!r} is not a valid {what or key}")
            return default
        return value

    def integer(self, t: Mapping[str, Any], key: str, where: str, *, default: int | None = None,
                minimum: int | None = None, maximum: int | None = None) -> int | None:
        """Return an integer value or `default`, reporting type and range problems."""
        value = t.get(key, _MISSING)
        loc = _join(where, key)
        if value is _MISSING:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(loc, f"expected an integer, got {_kind(value)}")
            return default
        if minimum is not None and value < minimum:
            self.error(loc, f"must be at least {minimum}, got {value}")
            return default
        if maximum is not None and value > maximum:
            self.error(loc, f"must be at most {maximum}, got {value}")
            return default
        return value

    def number(self, t: Mapping[str, Any], key: str, where: str, *,
               default: float | None = None, minimum: float | None = None,
               maximum: float | None = None, positive: bool = False) -> float | None:
        """Return a finite number or `default`, reporting type and range problems."""
        value = t.get(key, _MISSING)
        loc = _join(where, key)
        if value is _MISSING:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            self.error(loc, f"expected a finite number, got {_kind(value)}")
            return default
        if positive and value <= 0:
            self.error(loc, f"must be greater than 0, got {value}")
            return default
        if minimum is not None and value < minimum:
            self.error(loc, f"must be at least {minimum}, got {value}")
            return default
        if maximum is not None and value > maximum:
            self.error(loc, f"must be at most {maximum}, got {value}")
            return default
        return float(value)

    def strings(self, t: Mapping[str, Any], key: str, where: str, *,
                default: list[str] | None = None, required: bool = False) -> list[str]:
        """Return a non-empty list of distinct strings, reporting type and duplicate problems."""
        value = t.get(key, _MISSING)
        loc = _join(where, key)
        if value is _MISSING:
            if required:
                self.error(loc, "missing (required)")
            return list(default or [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.error(loc, f"expected a list of strings, got {_kind(value)}")
            return list(default or [])
        if not value:
            self.error(loc, "must not be empty")
        dupes = sorted({v for v in value if value.count(v) > 1})
        if dupes:
            self.error(loc, f"duplicate entries: {', '.join(dupes)}")
        return list(dict.fromkeys(value))


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int | float):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__
