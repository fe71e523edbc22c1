"""A verdict and the evidence it rests on: n and what was counted, uncertainty, the minimum.

Every instrument's product (a reading, a scorer kind, a licensed claim, a confirmed rule) is a
sentence a reader will act on, so it never travels without its sample: the count it rests on,
what was counted, its uncertainty where one exists (an interval, or the other verdicts the data
also supports), and the minimum the instrument needs. Below that minimum the verdict is
withheld: it reads "insufficient evidence (n = k, needs m)", never a confident sentence.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

T = TypeVar("T")

INSUFFICIENT = "insufficient evidence"


@dataclass(frozen=True, slots=True)
class Verdict:
    """A verdict with its evidence count, uncertainty and the instrument's minimum."""

    verdict: str
    n: int
    counted: str  # what n counts, plural noun: "task clusters", "samples"
    minimum: int
    interval: tuple[float, float] | None = None
    confidence: float | None = None
    interval_of: str = ""  # which quantity the interval bounds
    consistent: tuple[str, ...] = field(default=())  # other verdicts the data also supports
    why: str = ""

    def __post_init__(self) -> None:
        if self.n < 0 or self.minimum < 0:
            raise ValueError(f"a verdict's n and minimum are counts >= 0, got {self.n} and "
                             f"{self.minimum}")
        if not self.counted:
            raise ValueError("a verdict must say what its n counts")
        if self.interval is not None and not all(math.isfinite(x) for x in self.interval):
            raise ValueError(f"a verdict's interval must be finite, got {self.interval}")

    @classmethod
    def judged(cls, verdict: str, n: int, counted: str, minimum: int,
               **rest: Any) -> Verdict:
        """Return the verdict, or "insufficient evidence" when n is below the minimum."""
        if n < minimum:
            why = f"{rest.get('why', '')} (withheld: {verdict})".strip()
            return cls(INSUFFICIENT, n, counted, minimum, **{**rest, "why": why})
        return cls(verdict, n, counted, minimum, **rest)

    @property
    def sufficient(self) -> bool:
        """Return True when the evidence reaches the instrument's minimum."""
        return self.n >= self.minimum

    @property
    def stable(self) -> bool:
        """Return True when no other verdict is consistent with the data."""
        return all(v == self.verdict for v in self.consistent)

    def text(self) -> str:
        """Return the verdict as printed: always with its n (and its minimum when below it)."""
        counted = counted_as(self.n, self.counted)
        if not self.sufficient:
            return f"{INSUFFICIENT} (n = {self.n} {counted}, needs {self.minimum})"
        return f"{self.verdict} (n = {self.n} {counted})"

    def to_dict(self) -> dict[str, Any]:
        """Return the verdict as plain, canonical-JSON-able data (its text included)."""
        return {"verdict": self.verdict, "text": self.text(), "n": self.n,
                "counted": self.counted, "minimum": self.minimum,
                "sufficient": self.sufficient,
                "interval": None if self.interval is None else list(self.interval),
                "confidence": self.confidence, "interval_of": self.interval_of,
                "consistent": list(self.consistent), "stable": self.stable, "why": self.why}


def counted_as(n: int, counted: str) -> str:
    """Return the plural noun `counted` as n reads it: its first word ending in a single s
    loses it for n = 1 ("samples compared" -> "sample compared", "scorer declarations" ->
    "scorer declaration"); "n = 1 samples" stated a count its own noun contradicted."""
    if n != 1:
        return counted
    words = counted.split(" ")
    for i, w in enumerate(words):
        if len(w) > 2 and w.endswith("s") and not w.endswith("ss"):
            words[i] = w[:-1]
            return " ".join(words)
    return counted


def n_counted(n: int, counted: str) -> str:
    """Return n with its plural noun as n reads it ("1 task", "3 tasks")."""
    return f"{n} {counted_as(n, counted)}"


def split_halves(items: Sequence[T]) -> tuple[list[T], list[T]]:
    """Return the items at even and at odd positions: a deterministic split by sample index."""
    return list(items[0::2]), list(items[1::2])


def split_half(full: Verdict, items: Sequence[T],
               judge: Callable[[Sequence[T]], Verdict]) -> Verdict:
    """Return `full` with the verdicts of each half recorded, so it reads unstable when they differ.

    Each half is judged by the same instrument; a half below the minimum adds nothing (its
    "insufficient evidence" says nothing about the verdict), so only sufficient halves count.
    """
    if not full.sufficient:
        return full  # a withheld verdict has no stability to check: it says nothing already
    halves = [judge(half) for half in split_halves(items) if half]  # an empty half: no verdict
    others = tuple(h.verdict for h in halves if h.sufficient and h.verdict != full.verdict)
    return replace(full, consistent=tuple(dict.fromkeys(full.consistent + others)))
