"""ComtradeBench's two scorers behind the scorer protocol: ground-truth F1 and the shape judge."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology.envs.comtrade.scoring.ground_truth import (
    GROUND_TRUTH_SCORER,
    GROUND_TRUTH_VERSION,
    ground_truth_f1,
)
from agentmetrology.envs.comtrade.scoring.judge import JUDGE_SCORER, JUDGE_VERSION, shape_judge
from agentmetrology.envs.comtrade.scoring.streamed import StreamedSubmission
from agentmetrology.envs.comtrade.scoring.submission import (
    PARTS,
    Scorable,
    Submission,
    submission_from_mapping,
)
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.environment import ScorerKind
from agentmetrology.records.events import Event

GT_FIELDS = ("f1", "recall", "precision", "duplicates", "totals_rows", "spurious", "f1_exact",
             "value_mismatches")

# Both scorers read the same submission right after each other: parse it once. The slot holds
# the mapping and its three part values themselves, so an identity match can never be a
# recycled id, and a mapping whose parts were replaced since (a dict is mutable) is read anew.
_last: tuple[object, tuple[object, ...], Scorable | None] = (None, (), None)


def _parts(submission: Any) -> tuple[object, ...] | None:
    """Return the mapping's three part values when each is immutable (str or None), else None."""
    if not isinstance(submission, Mapping):
        return None
    parts = tuple(submission.get(p) for p in PARTS)
    return parts if all(v is None or type(v) is str for v in parts) else None


def as_submission(submission: Any) -> Scorable | None:
    """Return the parsed Submission of a mapping (or a Submission read from a directory)."""
    global _last
    if submission is None or isinstance(submission, Submission | StreamedSubmission):
        return submission
    cached_for, cached_parts, parsed = _last
    parts = _parts(submission)
    if cached_for is submission and parts is not None and len(parts) == len(cached_parts) \
            and all(a is b for a, b in zip(parts, cached_parts, strict=True)):
        return parsed
    parsed = submission_from_mapping(submission)
    _last = (submission, parts or (), parsed)
    return parsed


@dataclass(frozen=True, slots=True)
class GroundTruthScorer:
    """F1 of submitted record ids against the generated rows (exact variant beside it)."""

    name: str = GROUND_TRUTH_SCORER
    version: str = GROUND_TRUTH_VERSION
    kind: ScorerKind = "outcome"
    label: str = "ground_truth"

    def score(self, submission: Any, task: str, seed: int | None, profile: str,
              evidence_digest: str | None = None,
              trajectory: Sequence[Event] | None = None) -> Assessment:
        """Return the ground-truth F1 assessment."""
        return ground_truth_f1(as_submission(submission), task, seed, profile,
                               evidence_digest=evidence_digest)

    def summary(self, a: Assessment) -> dict[str, Any]:
        """Return the F1 components and the status (reasons when INVALID)."""
        out: dict[str, Any] = {k: a.components.get(k) for k in GT_FIELDS}
        out["status"] = a.status
        if a.status == "INVALID":
            out["reasons"] = list(a.reasons)
        return out


@dataclass(frozen=True, slots=True)
class ShapeJudgeScorer:
    """The original six-dimension rubric: never sees ground truth (an object of study)."""

    name: str = JUDGE_SCORER
    version: str = JUDGE_VERSION
    kind: ScorerKind = "shape"
    label: str = "judge"

    def score(self, submission: Any, task: str, seed: int | None, profile: str,
              evidence_digest: str | None = None,
              trajectory: Sequence[Event] | None = None) -> Assessment:
        """Return the judge's assessment (score = total 0-100)."""
        return shape_judge(as_submission(submission), task, evidence_digest=evidence_digest)

    def summary(self, a: Assessment) -> dict[str, Any]:
        """Return status, total and the per-dimension breakdown."""
        return {"status": a.status, "total": a.score, "breakdown": dict(a.components),
                **({"reasons": list(a.reasons)} if a.status == "INVALID" else {})}


SCORERS = (GroundTruthScorer(), ShapeJudgeScorer())
