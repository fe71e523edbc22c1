"""Every scorer of an environment as an Inspect scorer, each with its name and version.

All of an episode's assessments come from our one scoring function (`score_episode`) on the
record the solver kept in the store; the first scorer of a sample computes them and keeps them
in the store (ASSESSMENTS_KEY), so every scorer reports the same assessment `agm run` would.
For ComtradeBench the ground-truth F1 and the shape judge stand side by side.

A measurement failure is not a 0: an assessment without a score (UNKNOWN, INVALID), or a sample
whose episode is missing, is `Score.unscored` (Inspect's NaN sentinel, which its metrics and
reducers skip and count as unscored samples), with the status and reasons in its metadata.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.scorer import Metric, Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from agentmetrology.inspect_ext.task.metrics import bootstrap_ci, cvar, reliability, worst_case
from agentmetrology.inspect_ext.task.solver import EPISODE_KEY
from agentmetrology.records.canonical import digest, to_plain
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.episode import episode_from_plain
from agentmetrology.scoring.episode import score_episode

if not hasattr(Score, "unscored"):  # older inspect-ai: no way to mark a sample unmeasured
    raise ImportError("the agentmetrology Inspect extension needs an inspect-ai with "
                      "Score.unscored (tested with 0.3.285): pip install -U inspect-ai")

ASSESSMENTS_KEY = "agentmetrology:assessments"
SCORED = ("PASS", "FAIL", "PARTIAL")


def scorer_name(spec: EnvSpec, name: str) -> str:
    """Return the Inspect name of an environment's scorer: ENV/SCORER (scorer names repeat)."""
    return f"{spec.name}/{name}"


def scorer_metrics(kind: str) -> list[Metric]:
    """Return the metrics shown for a scorer: the mean and our reliability vocabulary."""
    out: list[Metric] = [mean(), worst_case(), cvar(0.2), bootstrap_ci(seed=0)]
    if kind == "outcome":  # Reliability@0.9 reads a score on [0, 1]: outcome scorers' scale
        out.insert(3, reliability(0.9))
    return out


def _assessments(spec: EnvSpec, state: TaskState) -> list[dict[str, Any]] | None:
    """Return the sample's assessments as plain data (computed once), or None without episode."""
    plain = state.store.get(EPISODE_KEY)
    if plain is None:
        return None
    key = digest(plain)
    cached = state.store.get(ASSESSMENTS_KEY)
    if isinstance(cached, dict) and cached.get("episode_sha256") == key:
        return list(cached["assessments"])
    found = [to_plain(a, tag_non_finite=True)
             for a in score_episode(spec, episode_from_plain(plain))]
    state.store.set(ASSESSMENTS_KEY, {"episode_sha256": key, "assessments": found})
    return found


def _termination(state: TaskState) -> str:
    """Return how the sample's episode ended ("infra_error: provider down"), or ""."""
    plain = state.store.get(EPISODE_KEY)
    term = plain.get("termination") if isinstance(plain, dict) else None
    if not isinstance(term, dict):
        return ""
    detail = str(term.get("detail") or "")
    return f"{term.get('kind')}: {detail}" if detail else str(term.get("kind") or "")


def _score(spec: EnvSpec, a: dict[str, Any], kind: str, termination: str = "") -> Score:
    meta = {"environment": spec.name, "env_version": spec.version, "scorer": a["scorer"],
            "scorer_version": a["scorer_version"], "kind": kind, "status": a["status"],
            "components": a.get("components") or {}, "reasons": list(a.get("reasons") or ()),
            "evidence_digest": a.get("evidence_digest") or "", "termination": termination}
    explanation = "; ".join(meta["reasons"]) or a["status"]
    value = a.get("score")
    if a["status"] not in SCORED or not isinstance(value, int | float):
        return Score.unscored(reason="scoring_failed" if a["status"] == "INVALID" else
                              f"measurement failure ({a['status']})",
                              explanation=explanation, metadata=meta)
    return Score(value=float(value), answer=a["status"], explanation=explanation,
                 metadata=meta)


def environment_scorer(spec: EnvSpec, name: str) -> Scorer:
    """Return the Inspect scorer of one scorer of `spec` (registered as ENV/SCORER)."""
    ours = spec.scorer(name)  # raises naming the scorers

    def factory() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            found = _assessments(spec, state)
            if found is None:
                return Score.unscored(
                    reason="scoring_failed",
                    explanation="no agentmetrology episode in the sample's store: the task's "
                                "solver did not run",
                    metadata={"environment": spec.name, "scorer": ours.name,
                              "scorer_version": ours.version, "status": "UNKNOWN"})
            mine = next(a for a in found if a["scorer"] == ours.name)
            return _score(spec, mine, ours.kind, _termination(state))

        return score

    factory.__name__ = ours.name
    return scorer(metrics=scorer_metrics(ours.kind), name=scorer_name(spec, ours.name),
                  scorer=ours.name, version=ours.version, kind=ours.kind)(factory)()


def environment_scorers(spec: EnvSpec) -> list[Scorer]:
    """Return every scorer of `spec` as an Inspect scorer, the grade scorer first."""
    grade = spec.grade_scorer.name
    names = [grade, *(s.name for s in spec.scorers if s.name != grade)]
    return [environment_scorer(spec, n) for n in names]
