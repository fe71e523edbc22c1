"""Unresolved outcomes reported honestly: decided-only ratio, coverage, accounting envelope.

Over N admissible records (well bound, measured) with n_pass passes, n_fail established
failures and n_unknown unresolved ones:

- decided-only ratio = n_pass / (n_pass + n_fail), undefined (None) when nothing is decided;
- coverage = (n_pass + n_fail) / N;
- accounting envelope = [n_pass / N, (n_pass + n_unknown) / N]: the pass rate if every
  unresolved record failed, and if every one passed. An UNKNOWN is never averaged as a failure:
  it widens the envelope instead.

INVALID records (a binding or contract mismatch) and measurement failures (an interrupted
execution) are not admissible: they are counted and excluded, never scored. Exact values are
kept as fractions; floats and percentages are derived from them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from agentmetrology.records.verdict import Verdict

MIN_ADMISSIBLE = 1  # an envelope over no admissible record says nothing


def percent(x: Fraction | None, digits: int = 1) -> str:
    """Return a fraction as a percentage with `digits` decimals ('—' when undefined)."""
    if x is None:
        return "—"
    return f"{float(x) * 100:.{digits}f}%"


def _frac(num: int, den: int) -> Fraction | None:
    return Fraction(num, den) if den else None


@dataclass(frozen=True, slots=True)
class Envelope:
    """Counts of one estimand over a set of executions, and what they license."""

    n_pass: int
    n_fail: int
    n_unknown: int
    n_partial: int = 0  # decided, not passed (counted with the failures)
    n_invalid: int = 0  # excluded: not admissible
    n_unmeasured: int = 0  # excluded: measurement failures

    @property
    def admissible(self) -> int:
        """Return N: the records that can be judged (pass, fail, partial or unknown)."""
        return self.n_pass + self.n_fail + self.n_partial + self.n_unknown

    @property
    def decided(self) -> int:
        """Return how many admissible records were decided (not UNKNOWN)."""
        return self.n_pass + self.n_fail + self.n_partial

    @property
    def decided_ratio(self) -> Fraction | None:
        """Return PASS / (PASS + FAIL), or None when nothing was decided."""
        return _frac(self.n_pass, self.decided)

    @property
    def coverage(self) -> Fraction | None:
        """Return decided / admissible, or None when nothing is admissible."""
        return _frac(self.decided, self.admissible)

    @property
    def lower(self) -> Fraction | None:
        """Return n_pass / N (every unresolved record a failure)."""
        return _frac(self.n_pass, self.admissible)

    @property
    def upper(self) -> Fraction | None:
        """Return (n_pass + n_unknown) / N (every unresolved record a pass)."""
        return _frac(self.n_pass + self.n_unknown, self.admissible)

    def as_dict(self) -> dict[str, Any]:
        """Return counts, fractions as 'a/b' text and their float values (null if undefined)."""
        def both(name: str, x: Fraction | None) -> dict[str, Any]:
            text = None if x is None else f"{x.numerator}/{x.denominator}"
            return {name: None if x is None else float(x), f"{name}_exact": text}
        lo, hi = self.lower, self.upper
        exact_n = f"/{self.admissible}" if self.admissible else ""
        return {
            "admissible": self.admissible, "pass": self.n_pass, "fail": self.n_fail,
            "partial": self.n_partial, "unknown": self.n_unknown, "decided": self.decided,
            "excluded": {"invalid": self.n_invalid, "measurement_failure": self.n_unmeasured},
            **both("decided_ratio", self.decided_ratio), **both("coverage", self.coverage),
            "envelope": None if lo is None or hi is None else [float(lo), float(hi)],
            "envelope_counts": None if not exact_n else
            [f"{self.n_pass}{exact_n}", f"{self.n_pass + self.n_unknown}{exact_n}"],
            "verdict": self.verdict().to_dict(),
        }

    def verdict(self) -> Verdict:
        """Return the pass rate as a Verdict: n admissible records, the envelope its range.

        An envelope needs one admissible record (MIN_ADMISSIBLE): over none, every pass rate
        is consistent with the data, so there is nothing to say.
        """
        n, lo, hi = self.admissible, self.n_pass, self.n_pass + self.n_unknown
        said = ("no pass rate" if not n else f"pass rate {lo}/{n}" if lo == hi else
                f"pass rate between {lo}/{n} and {hi}/{n}")
        return Verdict.judged(
            said, n, "admissible records", MIN_ADMISSIBLE,
            interval=None if not n else (lo / n, hi / n),
            interval_of="pass rate (accounting envelope: each UNKNOWN a fail, then a pass)"
            if n else "",
            why=f"{self.n_unknown} unresolved widen the envelope; {self.n_invalid} invalid and "
                f"{self.n_unmeasured} measurement failures excluded")


def envelope_of(statuses: Iterable[str | None]) -> Envelope:
    """Return the envelope of statuses (None marks a measurement failure)."""
    counts = {"PASS": 0, "FAIL": 0, "UNKNOWN": 0, "PARTIAL": 0, "INVALID": 0, None: 0}
    for s in statuses:
        if s not in counts:
            raise ValueError(f"unknown status {s!r}")
        counts[s] += 1
    return Envelope(counts["PASS"], counts["FAIL"], counts["UNKNOWN"], counts["PARTIAL"],
                    counts["INVALID"], counts[None])
