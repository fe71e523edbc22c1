"""A registered environment as an audit target: its probes, its scorers and its episodes.

Every hook comes from the environment's specification (`EnvSpec.audit`): the shipped scorer
(or the user's `--scorer` override) is probed against the valid one, and episodes run through
the one runner. A hook the environment does not supply makes its stages `not probed`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology.audit.scorer_override import UserScorer
from agentmetrology.audit.target import (
    Ownership,
    Probe,
    ScoreOutcome,
    ScorerKind,
    TaskRef,
    decided_truth,
)
from agentmetrology.records.canonical import canonical_json, sha256_hex
from agentmetrology.records.environment import AuditHooks, EnvSpec, Forged
from agentmetrology.records.episode import Episode
from agentmetrology.records.events import Event
from agentmetrology.run.episode import run_episode

# Why a cell is left out of every truth-reading stage (counted in audit.json, card, report).
TRUTH_EXCLUDED = "ground truth UNKNOWN or INVALID (the valid scorer could not decide it)"
UserScore = Callable[[str, int | None, dict[str, str]], ScoreOutcome]


def audit_hooks(spec: EnvSpec) -> AuditHooks:
    """Return the environment's audit hooks; without any, hooks that probe nothing.

    An environment that implements only the core is audited all the same: its grade scorer
    stands as both shipped and valid scorer, and every stage that needs a hook reads
    `not probed` (no probes, no agents, no tasks), never a default verdict.
    """
    if spec.audit is not None:
        return spec.audit
    grade = spec.grade_scorer.name
    return AuditHooks(probe_tasks=(), probes=None, shipped_scorer=grade, truth_scorer=grade)


@dataclass(frozen=True, slots=True)
class EpisodeRun:
    """One audited episode: its identity, digests, and both scores (0-1 scale for both)."""

    agent: str
    level: str
    task: str
    seed: int
    episode: Episode
    episode_sha256: str
    payload_sha256: str | None
    truth: float | None  # None: the valid scorer could not decide it (UNKNOWN or INVALID)
    shipped: ScoreOutcome


class EnvTarget:
    """An environment's shipped scorer under audit, its valid scorer as the oracle."""

    def __init__(self, spec: EnvSpec, seeds: int = 3, profile: str | None = None,
                 scorer: UserScore | None = None, scorer_label: str | None = None) -> None:
        self.spec = spec
        self.hooks: AuditHooks = audit_hooks(spec)
        self.name = spec.name
        self.seeds = seeds
        self.profile = profile or spec.profiles[0]
        self._user = scorer
        shipped = spec.scorer(self.hooks.shipped_scorer)
        self._shipped = shipped
        self._truth = spec.scorer(self.hooks.truth_scorer)
        self.shipped_version = None if scorer else shipped.version
        self.truth_version = self._truth.version
        self.truth_label = self.hooks.truth_label or self._truth.name
        self.scorer_kind: ScorerKind = "user" if scorer else shipped.kind
        self.scorer_name = scorer_label or shipped.name
        # A user scorer is compared exactly and on a 0-1 scale.
        self.resolution = 0.0 if scorer else self.hooks.shipped_resolution
        self.scale = 1.0 if scorer else self.hooks.shipped_scale
        # The benchmark ships its valid scorer itself (the tool worlds' goal): the shipped
        # column is then ranked by its own values too.
        self.ships_truth = scorer is None and shipped is self._truth \
            and self.hooks.truth_component is None

    def scorer_code(self) -> dict[str, str | float] | None:
        """Return what names the user's scorer code (file, function, sha256, timeout), or None
        for the shipped scorer or a user callable loaded from no file."""
        return self._user.identity() if isinstance(self._user, UserScorer) else None

    def ownership_map(self) -> Ownership | None:
        """Return the per-level map and the decisions the benchmark claims to test."""
        if not self.spec.ownership:
            return None
        return Ownership({k: dict(v) for k, v in self.spec.ownership.items()},
                         self.hooks.claimed or self.spec.decisions)

    def tasks(self) -> list[TaskRef]:
        """Return the probe tasks at seeds 0..seeds-1."""
        return [TaskRef(t, s) for t in self.hooks.probe_tasks for s in range(self.seeds)]

    def _battery(self, ref: TaskRef) -> dict[str, Any]:
        assert self.hooks.probes is not None
        return self.hooks.probes(ref.task_id, ref.seed, self.profile)

    def oracle(self, ref: TaskRef) -> Any | None:
        """Return the correct submission (the battery's first probe), or None without probes."""
        if self.hooks.probes is None:
            return None
        return next(iter(self._battery(ref).values()))

    def probes(self, ref: TaskRef, correct: Any) -> list[Probe] | None:
        """Return the probes with their ground-truth quality, or None without probes."""
        if self.hooks.probes is None:
            return None
        out = []
        for name, sub in self._battery(ref).items():
            gt = self.truth(ref, sub)
            out.append(Probe(name, sub, gt, {"truth": gt}))
        return out

    def truth(self, ref: TaskRef, submission: Any,
              trajectory: Sequence[Event] | None = None) -> float | None:
        """Return the valid scorer's quality in [0, 1], or None when it cannot decide it.

        An UNKNOWN or INVALID truth (or one without the audited component) has no ground-truth
        quality: every stage excludes and counts it (`TRUTH_EXCLUDED`), never averages it as 0.
        """
        submission, trajectory = _unpack(submission, trajectory)
        a = self._truth.score(submission, ref.task_id, ref.seed, self.profile, None, trajectory)
        return decided_truth(a.status, a.score, a.components, self.hooks.truth_component)

    def score(self, ref: TaskRef, submission: Any,
              trajectory: Sequence[Event] | None = None) -> ScoreOutcome:
        """Return the shipped scorer's verdict (or the user's override's) on the submission as
        the environment's `scorer_view` shows it: the work, never the grade beside it."""
        submission, trajectory = _unpack(submission, trajectory)
        if submission is not None and self.hooks.scorer_view is not None:
            submission = self.hooks.scorer_view(submission)
        if self._user is not None:
            if submission is None:
                return ScoreOutcome(None, "INVALID", "no submission to score")
            return self._user(ref.task_id, ref.seed, submission)
        a = self._shipped.score(submission, ref.task_id, ref.seed, self.profile, None,
                                trajectory)
        if a.status == "INVALID" or a.score is None:
            return ScoreOutcome(None, "INVALID", "; ".join(a.reasons))
        return ScoreOutcome(float(a.score))

    def run_episode(self, agent: str, level: str, task: str, seed: int, *,
                    shipped: bool = True) -> EpisodeRun:
        """Run one model-free episode and score it with the valid and (if asked) shipped scorer.

        Stages that read ground truth only pass `shipped=False`: a user's scorer runs in its own
        process, and hundreds of calls whose answers nobody reads are pure cost.
        """
        ep = run_episode(self.spec, task, seed, agent, level, profile=self.profile)
        ref = TaskRef(task, seed)
        verdict = self.score(ref, ep.submission, ep.events) if shipped else \
            ScoreOutcome(None, "INVALID", "not scored: this stage reads ground truth only")
        return EpisodeRun(agent, level, task, seed, ep, sha256_hex(canonical_json(ep)),
                          ep.digests.get("submission"),
                          self.truth(ref, ep.submission, ep.events),
                          verdict)


def _unpack(submission: Any, trajectory: Sequence[Event] | None
            ) -> tuple[Any, Sequence[Event] | None]:
    """Return (submission, trajectory) of a plain submission or a Forged probe."""
    if isinstance(submission, Forged):
        return submission.submission, submission.trajectory
    return submission, trajectory
