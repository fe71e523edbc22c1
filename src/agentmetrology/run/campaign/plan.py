"""Expansion of a campaign into administrations, in a deterministic order, with their bindings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentmetrology.envs.registry import get_env, task_spec_digest
from agentmetrology.mutations import mutate_scorers, split_condition
from agentmetrology.records.canonical import digest, to_plain
from agentmetrology.records.episode import EpisodeKey
from agentmetrology.run.campaign.spec import CampaignConfig, TargetSpec
from agentmetrology.store.store import Binding


@dataclass(frozen=True, slots=True)
class Planned:
    """One administration: its idempotency key, its target and its place in the plan."""

    key: EpisodeKey
    target: TargetSpec
    ordinal: int


@dataclass(frozen=True, slots=True)
class Plan:
    """Every administration of a campaign, their sealed bindings and the plan's digest."""

    config: CampaignConfig
    administrations: tuple[Planned, ...]
    bindings: tuple[Binding, ...]
    digest: str

    def by_key(self) -> dict[EpisodeKey, Planned]:
        """Return the administrations indexed by key."""
        return {p.key: p for p in self.administrations}


def scorer_versions(environment: str, condition: str = "clean") -> dict[str, str]:
    """Return the scorer versions an administration of `environment` under `condition` binds.

    They come from the registry; a scorer-side mutation (`rubric`) binds its mutated scorers.
    """
    spec = get_env(environment)
    return {s.name: s.version for s in mutate_scorers(spec, split_condition(condition)[1])}


def target_config_digest(target: TargetSpec) -> str:
    """Return the digest of a target's storable configuration (no secrets in it)."""
    return digest(target.public())


def plan_campaign(config: CampaignConfig) -> Plan:
    """Return the plan of a campaign.

    The order is repeat, seed, task, condition, level, target (innermost): stopping early, on a
    budget or a crash, leaves every target measured on the same tasks and seeds, so a partial
    campaign is still a balanced comparison.
    """
    targets = list(config.targets)
    task_digests = {t: task_spec_digest(t, config.profile, config.environment)
                    for t in config.tasks}
    versions = {c: scorer_versions(config.environment, c) for c in config.conditions}
    target_digests = {t.name: target_config_digest(t) for t in targets}
    details = _details(config)
    planned: list[Planned] = []
    bindings: list[Binding] = []
    for repeat in range(config.repeats):
        for seed in config.seeds:
            for task in config.tasks:
                for condition in config.conditions:
                    for level in config.levels_union():
                        for target in targets:
                            if level not in config.levels_of(target):
                                continue
                            key = EpisodeKey(config.name, target.name, task, seed, condition,
                                             level, repeat)
                            n = len(planned)
                            planned.append(Planned(key, target, n))
                            bindings.append(Binding(key, n, task_digests[task],
                                                    target_digests[target.name],
                                                    dict(versions[condition]), details))
    plan_doc = {"campaign": config.name, "bindings": [_binding_plain(b) for b in bindings]}
    return Plan(config, tuple(planned), tuple(bindings), digest(plan_doc))


def _details(config: CampaignConfig) -> dict[str, Any]:
    # Limits that change what an episode does are bound; budgets (max_cost, max_tokens) and
    # concurrency are not, so raising a budget to finish a campaign keeps its keys valid.
    lim = config.limits
    return {"environment": config.environment, "profile": config.profile,
            "max_steps": lim.max_steps, "deadline_s": lim.deadline_s}


def _binding_plain(b: Binding) -> dict[str, Any]:
    return {"key": to_plain(b.key), "task": b.task_spec_digest, "target": b.target_config_digest,
            "scorers": b.scorer_versions, "details": b.details}
