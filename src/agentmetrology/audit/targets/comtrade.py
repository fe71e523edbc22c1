"""The built-in `comtrade` audit target: all four hooks plus episode runs for the L0/L2 stages."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentmetrology.agents.comtrade.registry import make_agent
from agentmetrology.agents.drive import drive
from agentmetrology.agents.scaffolds.comtrade import run_episode_async
from agentmetrology.agents.scaffolds.ownership import DECISIONS, OWNERSHIP
from agentmetrology.audit.target import Ownership, Probe, ScoreOutcome, ScorerKind, TaskRef
from agentmetrology.audit.targets.comtrade_probes import PROBE_NAMES, battery
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.envs.comtrade.tasks import TASKS, Profile
from agentmetrology.records.canonical import canonical_json, sha256_hex
from agentmetrology.records.episode import Episode
from agentmetrology.scoring.ground_truth import ground_truth_f1
from agentmetrology.scoring.judge import JUDGE_SCORER, shape_judge
from agentmetrology.scoring.submission import submission_from_mapping

# The ten tasks with a fault family of their own (T9_clean_ab is the stress substrate).
AUDIT_TASKS: tuple[str, ...] = tuple(t for t in TASKS if t != "T9_clean_ab")
UserScore = Callable[[str, int | None, dict[str, str]], ScoreOutcome]


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
    truth: float
    shipped: ScoreOutcome


class ComtradeTarget:
    """ComtradeBench: shape judge as the shipped scorer, ground-truth F1 as the oracle."""

    name = "comtrade"

    def __init__(self, seeds: int = 3, profile: Profile = "seeded",
                 scorer: UserScore | None = None, scorer_label: str | None = None) -> None:
        self.seeds = seeds
        self.profile: Profile = profile
        self._user = scorer
        self.scorer_kind: ScorerKind = "user" if scorer else "shape"
        self.scorer_name = scorer_label or JUDGE_SCORER
        # The judge rounds to 0.1 on a 0-100 scale; a user scorer is compared exactly.
        self.resolution = 0.0 if scorer else 0.1
        self.scale = 1.0 if scorer else 100.0

    def ownership_map(self) -> Ownership:
        """Return the L0/L1/L2 map; ComtradeBench claims to test all six decisions."""
        return Ownership({k: dict(v) for k, v in OWNERSHIP.items()}, DECISIONS)

    def tasks(self) -> list[TaskRef]:
        """Return the ten fault tasks at seeds 0..seeds-1."""
        return [TaskRef(t, s) for t in AUDIT_TASKS for s in range(self.seeds)]

    def oracle(self, ref: TaskRef) -> dict[str, str]:
        """Return the correct submission (every genuine row once, honest metadata)."""
        return battery(ref.task_id, ref.seed, self.profile)["correct"]

    def probes(self, ref: TaskRef, correct: Any) -> list[Probe]:
        """Return the probes with their exact ground-truth F1 as truth quality."""
        subs = battery(ref.task_id, ref.seed, self.profile)
        out = []
        for name in PROBE_NAMES:
            gt = self.truth(ref, subs[name])
            out.append(Probe(name, subs[name], gt, {"f1": gt}))
        return out

    def truth(self, ref: TaskRef, submission: dict[str, str] | None) -> float:
        """Return exact ground-truth F1 (ids and row values) of a submission (0 if none)."""
        a = ground_truth_f1(submission_from_mapping(submission), ref.task_id, ref.seed,
                            self.profile)
        # An unreadable submission (INVALID) has no ground-truth quality at all: 0 by design.
        return float(a.components.get("f1_exact", 0.0)) if a.score is not None else 0.0

    def score(self, ref: TaskRef, submission: dict[str, str] | None) -> ScoreOutcome:
        """Return the shipped scorer's verdict (the shape judge, or the user's override)."""
        if self._user is not None:
            if submission is None:
                return ScoreOutcome(None, "INVALID", "no submission to score")
            return self._user(ref.task_id, ref.seed, submission)
        a = shape_judge(submission_from_mapping(submission), ref.task_id)
        if a.status == "INVALID":
            return ScoreOutcome(None, "INVALID", "; ".join(a.reasons))
        return ScoreOutcome(float(a.score or 0.0))

    def run_episode(self, agent: str, level: str, task: str, seed: int) -> EpisodeRun:
        """Run one model-free episode and score it with both scorers."""
        env = ComtradeEnv(task, seed, self.profile)
        ep = drive(run_episode_async(env, make_agent(agent), level))
        ref = TaskRef(task, seed)
        return EpisodeRun(agent, level, task, seed, ep, sha256_hex(canonical_json(ep)),
                          ep.digests.get("submission"), self.truth(ref, ep.submission),
                          self.score(ref, ep.submission))
