"""The one scoring function: an episode (or a submission) through every scorer of its environment.

A measurement failure (infrastructure error, cancelled attempt) is never a score: every scorer's
assessment of such an episode is UNKNOWN with a null score and the reason, whatever the
submission holds. A scorer that raises is INVALID with the exception as its reason, and so is
one whose score is not a finite number (NaN, an infinity, a string): null score, the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from agentmetrology.mutations import mutate_scorers, split_condition
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.environment import EnvSpec, Scorer
from agentmetrology.records.episode import Episode
from agentmetrology.records.events import Event
from agentmetrology.records.numbers import finite_float
from agentmetrology.runtime.gc_pause import gc_paused


def _score_problem(score: Any) -> str:
    """Return why a scorer's score is no number ('' for None or a finite real number)."""
    if score is None or finite_float(score) is not None:
        return ""
    if isinstance(score, bool) or not isinstance(score, int | float):
        return f"the scorer returned a score that is not a number: {score!r}"
    return f"the scorer returned a score that is not a finite number: {score!r}"


def _invalid(scorer: Scorer, why: str, evidence_digest: str | None) -> Assessment:
    return Assessment(scorer.name, scorer.version, "INVALID", None, {}, (why,),
                      evidence_digest or "")


def _guarded(scorer: Scorer, submission: Any, task: str, seed: int | None, profile: str,
             evidence_digest: str | None, trajectory: Sequence[Event] | None) -> Assessment:
    try:
        a = scorer.score(submission, task, seed, profile, evidence_digest, trajectory)
    except Exception as exc:  # a scorer bug is an invalid measurement, never a crash or a 0
        return _invalid(scorer, f"the scorer raised {type(exc).__name__}: {exc}",
                        evidence_digest)
    if not isinstance(a, Assessment):
        return _invalid(scorer, f"the scorer returned {type(a).__name__}, not an Assessment",
                        evidence_digest)
    # A NaN, an infinity or a string is no measurement either: every aggregate downstream
    # would either raise or carry it into its means.
    why = _score_problem(a.score)
    if why:
        return replace(a, status="INVALID", score=None, reasons=(*a.reasons, why))
    return a


def score_submission(spec: EnvSpec, submission: Any, task: str, seed: int | None,
                     profile: str, evidence_digest: str | None = None,
                     trajectory: Sequence[Event] | None = None,
                     condition: str = "clean") -> tuple[Assessment, ...]:
    """Return one assessment per scorer of `spec` for a submission, in the spec's order.

    Under a scorer-side mutation (`rubric`) the environment's mutated scorers are used.
    """
    scorers = mutate_scorers(spec, split_condition(condition)[1])
    with gc_paused():
        return tuple(_guarded(s, submission, task, seed, profile, evidence_digest, trajectory)
                     for s in scorers)


def unmeasured(spec: EnvSpec, episode: Episode) -> tuple[Assessment, ...]:
    """Return UNKNOWN assessments (null score, the reason) for an unmeasured episode."""
    t = episode.termination
    why = f"measurement failure ({t.kind}): {t.detail}" if t.detail else \
        f"measurement failure ({t.kind})"
    ev = episode.digests.get("submission", "")
    return tuple(Assessment(s.name, s.version, "UNKNOWN", None, {}, (why,), ev)
                 for s in spec.scorers)


def episode_context(spec: EnvSpec, episode: Episode) -> tuple[int | None, str]:
    """Return (seed, profile) an episode's scorers take (seed None where a profile has none)."""
    return (None if episode.seed < 0 else episode.seed,
            str(episode.meta.get("profile") or spec.profiles[0]))


def score_episode(spec: EnvSpec, episode: Episode) -> tuple[Assessment, ...]:
    """Return the assessments of an episode by every scorer of its environment."""
    if episode.termination.is_measurement_failure:
        return unmeasured(spec, episode)
    seed, profile = episode_context(spec, episode)
    return score_submission(spec, episode.submission, episode.task, seed, profile,
                            episode.digests.get("submission", ""), episode.events,
                            episode.condition)


def summarised(scorer: Scorer, a: Assessment | None) -> dict[str, Any]:
    """Return a result row's part for one scorer: the version that scored, then its summary."""
    if a is None:
        return {"version": scorer.version, "status": "UNKNOWN", "reasons": ["not scored"]}
    return {"version": a.scorer_version, **scorer.summary(a)}
