"""Run ComtradeBench episodes with model-free agents and score each with both scorers."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agentmetrology.agents.comtrade.registry import make_agent
from agentmetrology.agents.drive import drive
from agentmetrology.agents.policy import Policy
from agentmetrology.agents.scaffolds.comtrade import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv, Profile
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.episode import Episode
from agentmetrology.scoring.ground_truth import ground_truth_f1
from agentmetrology.scoring.judge import shape_judge
from agentmetrology.scoring.submission import Submission, submission_from_mapping

GT_FIELDS = ("f1", "recall", "precision", "duplicates", "totals_rows", "spurious", "f1_exact",
             "value_mismatches")


@dataclass(frozen=True, slots=True)
class ScoredEpisode:
    """An episode with its ground-truth and judge assessments."""

    episode: Episode
    profile: str
    ground_truth: Assessment
    judge: Assessment

    def row(self) -> dict[str, Any]:
        """Return the one-line JSON summary `agm run comtrade --json` prints."""
        ep = self.episode
        sub = ep.submission
        rows = 0
        if sub is not None:
            rows = sum(1 for line in sub["data_jsonl"].splitlines() if line.strip())
        return {
            "task": ep.task, "seed": ep.seed, "profile": self.profile,
            "agent": ep.meta.get("agent", ep.target), "level": ep.level,
            "condition": ep.condition,
            "termination": ep.termination.kind,
            "requests_used": ep.usage.requests,
            "rows_submitted": rows,
            "submission_sha256": ep.digests.get("submission"),
            "ground_truth": assessment_fields(self.ground_truth, GT_FIELDS),
            "judge": {"status": self.judge.status, "total": self.judge.score,
                      "breakdown": dict(self.judge.components),
                      **({"reasons": list(self.judge.reasons)}
                         if self.judge.status == "INVALID" else {})},
        }


def assessment_fields(a: Assessment, fields: Iterable[str]) -> dict[str, Any]:
    """Return the named components of an assessment plus its status."""
    out: dict[str, Any] = {k: a.components.get(k) for k in fields}
    out["status"] = a.status
    if a.status == "INVALID":
        out["reasons"] = list(a.reasons)
    return out


def score_submission(sub: Submission | None, task_id: str, seed: int | None,
                     profile: str, evidence_digest: str | None = None) -> tuple[Assessment,
                                                                                Assessment]:
    """Return (ground truth, judge) assessments of one submission (one parse, one digest)."""
    return (ground_truth_f1(sub, task_id, seed, profile, evidence_digest=evidence_digest),
            shape_judge(sub, task_id, evidence_digest=evidence_digest))


def _scored(ep: Episode, task_id: str, seed: int, profile: str) -> ScoredEpisode:
    gt, judge = score_submission(submission_from_mapping(ep.submission), task_id, seed, profile,
                                 ep.digests.get("submission", ""))
    return ScoredEpisode(ep, profile, gt, judge)


def run_one(task_id: str, seed: int, agent: str | Policy, level: str,
            profile: Profile = "seeded", condition: str = "clean") -> ScoredEpisode:
    """Run and score one model-free episode (synchronously, on a fake clock)."""
    policy = make_agent(agent) if isinstance(agent, str) else agent
    env = ComtradeEnv(task_id, seed, profile, condition)
    ep = drive(run_episode_async(env, policy, level))
    return _scored(ep, task_id, seed, profile)
