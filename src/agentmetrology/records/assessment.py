"""Assessments: a scorer's verdict with one of five statuses, bound to evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

Status = Literal["PASS", "FAIL", "PARTIAL", "UNKNOWN", "INVALID"]
STATUSES: tuple[str, ...] = get_args(Status)


@dataclass(frozen=True, slots=True)
class Assessment:
    """A scorer's result: status, score, named components, reasons and the evidence digest."""

    scorer: str
    scorer_version: str
    status: Status
    score: float | None
    components: dict[str, Any] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    evidence_digest: str = ""

    @property
    def is_measurement(self) -> bool:
        """Return True when the assessment carries a usable score (not UNKNOWN or INVALID)."""
        return self.status not in ("UNKNOWN", "INVALID") and self.score is not None
