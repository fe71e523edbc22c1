"""Run and score one episode of any registered environment; its result row for `--json`.

`run_episode` is the only place that builds an episode's environment and drives a policy on it
(every caller — `agm run`, campaign workers, LLM episodes, the auditor, archive recovery — comes
through here or through `run_episode_async`), and `score_episode` the only place that scores one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentmetrology.agents.registry import make_agent
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.mutations import (
    get_mutation,
    mutate_env,
    mutated_condition,
    split_condition,
    unsupported,
)
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.clock import Clock
from agentmetrology.records.environment import EnvInstance, EnvSpec
from agentmetrology.records.episode import Episode
from agentmetrology.records.policy import Policy
from agentmetrology.runtime.drive import drive
from agentmetrology.runtime.gc_pause import gc_paused
from agentmetrology.scoring.episode import score_episode, summarised


def make_policy(spec: EnvSpec, agent: str, **options: Any) -> Policy:
    """Return a fresh policy by name: one of `spec`'s agents, or of an agent family (llm:MODEL,
    made from `options`); raise UnknownAgentError (a ValueError) naming them."""
    return make_agent(spec, agent, **options)


def canonical_condition(spec: EnvSpec, condition: str) -> str:
    """Return the one spelling of a condition, mutation included, or raise ValueError."""
    base, mutation = split_condition(condition)
    base = spec.canonical_condition(base)
    if mutation is None:
        return base
    get_mutation(mutation)  # raises naming the known mutations
    why = unsupported(spec, mutation)
    if why:
        raise ValueError(why)
    return mutated_condition(base, mutation)


def make_env(spec: EnvSpec, task: str, seed: int | None, profile: str,
             condition: str) -> EnvInstance:
    """Return one episode's environment, checking the task, profile and condition first."""
    spec.check_task(task)
    spec.check_profile(profile)
    canonical = canonical_condition(spec, condition)
    base, mutation = split_condition(canonical)
    env = spec.make(task, seed, profile, base)
    return env if mutation is None else mutate_env(spec, env, mutation, canonical)


@dataclass(frozen=True, slots=True)
class ScoredEpisode:
    """An episode with its assessments, one per scorer of its environment (in spec order)."""

    spec: EnvSpec
    episode: Episode
    profile: str
    assessments: tuple[Assessment, ...]

    def assessment(self, scorer: str) -> Assessment:
        """Return the assessment of a scorer given by name or row label."""
        for s, a in zip(self.spec.scorers, self.assessments, strict=True):
            if scorer in (s.name, s.label):
                return a
        raise KeyError(scorer)

    def row(self) -> dict[str, Any]:
        """Return the one-line JSON summary `agm run --json` prints."""
        return result_row(self.spec, self.episode, self.assessments, self.profile)


def result_row(spec: EnvSpec, ep: Episode, assessments: tuple[Assessment, ...] | list[Assessment],
               profile: str) -> dict[str, Any]:
    """Return the result row of a scored episode: identity, termination, one part per scorer.

    A measurement failure carries `measurement_failure` (why) and null scores with status
    UNKNOWN, so no aggregate can read it as a zero.
    """
    row: dict[str, Any] = {
        "environment": spec.name, "task": ep.task, "seed": ep.seed, "profile": profile,
        "agent": ep.meta.get("agent", ep.target), "level": ep.level,
        "condition": ep.condition, "termination": ep.termination.kind,
        "requests_used": ep.usage.requests,
        **(spec.display.row_extras(ep) if spec.display and spec.display.row_extras else {}),
        "submission_sha256": ep.digests.get("submission"),
    }
    if ep.termination.is_measurement_failure:
        row["measurement_failure"] = ep.termination.detail or ep.termination.kind
    by_name = {a.scorer: a for a in assessments}
    for s in spec.scorers:
        row[s.label] = summarised(s, by_name.get(s.name))
    return row


def run_episode(spec: EnvSpec, task: str, seed: int | None, agent: str | Policy, level: str, *,
                profile: str | None = None, condition: str = "clean",
                max_steps: int | None = None, clock: Clock | None = None,
                target: str | None = None, campaign: str = "adhoc",
                repeat: int = 0) -> Episode:
    """Run one model-free episode synchronously (on a fake clock unless one is given)."""
    policy = make_policy(spec, agent) if isinstance(agent, str) else agent
    prof = profile or spec.profiles[0]
    with gc_paused():
        env = make_env(spec, task, seed, prof, condition)
        return drive(run_episode_async(spec, env, policy, level, clock=clock,
                                       max_steps=max_steps, target=target, campaign=campaign,
                                       repeat=repeat))


def run_one(spec: EnvSpec, task: str, seed: int | None, agent: str | Policy, level: str,
            profile: str | None = None, condition: str = "clean",
            max_steps: int | None = None, *, repeat: int = 0) -> ScoredEpisode:
    """Run and score one model-free episode; its key carries `repeat` (an epoch index)."""
    prof = profile or spec.profiles[0]
    # One pause over running and scoring (each also pauses on its own): the collector,
    # re-enabled between them, would walk the whole live episode once before scoring.
    with gc_paused():
        ep = run_episode(spec, task, seed, agent, level, profile=prof, condition=condition,
                         max_steps=max_steps, repeat=repeat)
        return ScoredEpisode(spec, ep, prof, score_episode(spec, ep))
