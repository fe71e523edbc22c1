"""What `agm score` and `agm truth` ask of an environment's offline capability: a submission
directory scored by every scorer, and the ground truth of (task, seed) as rows.

Bad input (an unknown task or profile, an environment without the capability, an unreadable
directory) is a UserError in one line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmetrology.records.assessment import Assessment
from agentmetrology.records.canonical import digest
from agentmetrology.records.environment import EnvSpec, Offline
from agentmetrology.records.errors import UserError
from agentmetrology.scoring.episode import score_submission, summarised


def checked_profile(spec: EnvSpec, task: str, profile: str | None) -> str:
    """Return the profile (default: the environment's first) after checking task and profile."""
    try:
        spec.check_task(task)
        prof = profile or spec.profiles[0]
        spec.check_profile(prof)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    return prof


@dataclass(frozen=True, slots=True)
class ScoredSubmission:
    """A submission directory scored: the profile used, each scorer's assessment and the JSON
    document `agm score --json` prints."""

    profile: str
    assessments: tuple[Assessment, ...]
    doc: dict[str, Any]


def score_directory(spec: EnvSpec, directory: Path, task: str, seed: int,
                    profile: str | None) -> ScoredSubmission:
    """Read a submission directory and score it with every scorer of the environment."""
    prof = checked_profile(spec, task, profile)
    read = spec.offline.read_submission if spec.offline else None
    if read is None:
        raise UserError(f"environment {spec.name!r} cannot read submissions from a directory")
    try:
        sub = read(directory)
    except (ValueError, OSError) as exc:
        raise UserError(str(exc)) from exc
    # Bound to its evidence as an episode's submission is: the reader's own digest (comtrade's
    # three texts), else the canonical digest of what was read, so a submission scored from a
    # directory carries the digest of the episode that produced it.
    ev = getattr(sub, "digest", None)
    if not isinstance(ev, str):
        try:
            ev = digest(sub)
        except (ValueError, TypeError, RecursionError):
            ev = None  # nothing canonical to bind; the scorers say what they make of it
    assessments = score_submission(spec, sub, task, seed, prof, evidence_digest=ev)
    doc: dict[str, Any] = {"environment": spec.name, "task": task, "seed": seed,
                           "profile": prof, "submission_sha256": ev}
    for s, a in zip(spec.scorers, assessments, strict=True):
        doc[s.label] = {**summarised(s, a), "reasons": list(a.reasons)}
    return ScoredSubmission(prof, assessments, doc)


def ground_truth(spec: EnvSpec, task: str, seed: int, profile: str | None
                 ) -> tuple[str | None, Callable[[], Iterable[dict[str, Any]]]]:
    """Return the note the environment says about (task, seed) (or None) and what yields its
    truth rows (called after the note is shown)."""
    prof = checked_profile(spec, task, profile)
    offline = spec.offline or Offline()
    truth = offline.truth
    if truth is None:
        raise UserError(f"environment {spec.name!r} publishes no ground truth")
    note = offline.truth_note(task, seed, prof) if offline.truth_note else None
    return note, lambda: truth(task, seed, prof)
