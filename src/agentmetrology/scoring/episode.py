"""The one scoring function: an episode (or a submission) through every scorer of its environment.

A measurement failure (infrastructure error, cancelled attempt) is never a score: every scorer's
assessment of such an episode is UNKNOWN with a null score and the reason, whatever the
submission holds. A scorer that raises is INVALID with the exception as its reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentmetrology.mutations import mutate_scorers, split_condition
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.environment import EnvSpec, Scorer
from agentmetrology.records.episode import Episode
from agentmetrology.records.events import Event


def _guarded(scorer: Scorer, submission: Any, task: str, seed: int | None, profile: str,
             evidence_digest: str | None, trajectory: Sequence[Event] | None) -> Assessment:
    try:
        return scorer.score(submission, task, seed, profile, evidence_digest, trajectory)
    except Exception as exc:  # a scorer bug is an invalid measurement, never a crash or a 0
        return Assessment(scorer.name, scorer.version, "INVALID", None, {},
                          (f"the scorer raised {type(exc).__name__}: {exc}",),
                          evidence_digest or "")


def score_submission(spec: EnvSpec, submission: Any, task: str, seed: int | None,
                     profile: str, evidence_digest: str | None = None,
                     trajectory: Sequence[Event] | None = None,
                     condition: str = "clean") -> tuple[Assessment, ...]:
    """Return one assessment per scorer of `spec` for a submission, in the spec's order.

    Under a scorer-side mutation (`rubric`) the environment's mutated scorers are used.
    """
    scorers = mutate_scorers(spec, split_condition(condition)[1])
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
