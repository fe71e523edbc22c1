"""Target hooks: what the auditor needs from a benchmark (docs/audit.md, "Target hooks").

A target implements the hooks it can. A hook that is missing (the method returns None) makes
every stage that needs it `not probed`, never `pass`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from agentmetrology.records.environment import ScorerKind as EnvScorerKind
from agentmetrology.records.numbers import finite_float

# An environment's scorer kinds (one vocabulary, records.environment) and what the auditor adds
# for other benchmarks' scorers and a user's --scorer.
ScorerKind = EnvScorerKind | Literal["string-match", "unknown", "user"]


@dataclass(frozen=True, slots=True)
class TaskRef:
    """One seeded task instance the auditor can probe."""

    task_id: str
    seed: int | None = None


@dataclass(frozen=True, slots=True)
class Probe:
    """A forged submission and its ground-truth quality (1.0 = as good as the oracle)."""

    name: str
    submission: Any
    # Ground-truth quality in [0, 1], from the target's valid scorer or by design; None when the
    # valid scorer could not decide it (excluded from every comparison and mean, counted).
    truth: float | None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ScoreOutcome:
    """What a scorer hook said about one submission: a number, or INVALID with the message."""

    value: float | None
    status: Literal["ok", "INVALID"] = "ok"
    message: str = ""


def decided_truth(status: str | None, score: Any, components: Mapping[str, Any],
                  component: str | None) -> float | None:
    """Return a valid scorer's ground-truth quality (its `component` if named), or None.

    None when the verdict is UNKNOWN or INVALID, has no score, or the value is not a number:
    an undecided truth is excluded and counted by every stage, never read as 0.
    """
    if score is None or status in ("UNKNOWN", "INVALID"):
        return None
    value = components.get(component) if component else score
    return finite_float(value)  # None for a bool, a non-number, NaN or an infinity


@dataclass(frozen=True, slots=True)
class Ownership:
    """Who owns each decision at each level, and the decisions the benchmark claims to test."""

    levels: dict[str, dict[str, str]]
    claimed: tuple[str, ...]


class AuditTarget(Protocol):
    """The hooks of a benchmark under audit."""

    name: str
    scorer_kind: ScorerKind
    scorer_name: str
    resolution: float  # the scorer's resolution eps (a tie within eps is a tie)

    def ownership_map(self) -> Ownership | None:
        """Return the ownership map and claimed decisions, or None when unknown."""
        ...

    def tasks(self) -> list[TaskRef] | None:
        """Return the seeded task registry to probe, or None."""
        ...

    def oracle(self, ref: TaskRef) -> Any | None:
        """Return the canonical correct submission for a task, or None without an oracle."""
        ...

    def probes(self, ref: TaskRef, correct: Any) -> list[Probe] | None:
        """Return the forged-submission battery built from the oracle (first probe: correct)."""
        ...

    def score(self, ref: TaskRef, submission: Any) -> ScoreOutcome | None:
        """Return the benchmark's own scorer's verdict on a submission, or None without one."""
        ...
