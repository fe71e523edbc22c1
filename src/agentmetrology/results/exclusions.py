"""The rows left out of an analysis and the values read through a coercion, by reason.

Counts are always complete; only the line numbers and details listed per reason are capped,
so a document stays small however many rows a reason covers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

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
