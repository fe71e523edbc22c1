"""Counterfactual rescoring: the same recorded trajectory, scored as if no mutation had happened.

The inverse map of the episode's mutation is applied to its recorded events (renamed tools get
their original names back) and the episode is scored again with the environment's original
scorers, without rerunning the agent. What the rescoring removes is evaluator sensitivity; what
remains is a change in the agent's behaviour (docs/diagnose.md, "The protocol", step 4).
"""

from __future__ import annotations

from agentmetrology.mutations import get_mutation, invert_trajectory, split_condition
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.episode import Episode
from agentmetrology.records.errors import UserError
from agentmetrology.scoring.episode import episode_context, score_submission, unmeasured


def not_rescorable(spec: EnvSpec, episode: Episode) -> str:
    """Return why the episode's environment cannot be made again to rescore it ("" if it can).

    A hand-edited store can hold an administration (task, data profile, base condition) its
    environment does not have; rescoring it would fail, so it is a measurement failure.
    """
    base, _ = split_condition(episode.condition)
    _, profile = episode_context(spec, episode)
    if episode.task not in spec.tasks:
        return f"not rescorable: its task is not a task of environment {spec.name!r}"
    if profile not in spec.profiles:
        return f"not rescorable: its data profile is not one of environment {spec.name!r}"
    try:
        spec.canonical_condition(base)
    except UserError:
        return f"not rescorable: its base condition is not one of environment {spec.name!r}"
    return ""


def original_tool_names(spec: EnvSpec, episode: Episode) -> list[str]:
    """Return the tool names of the episode's environment before any mutation."""
    base, _ = split_condition(episode.condition)
    seed, profile = episode_context(spec, episode)
    return list(spec.make(episode.task, seed, profile, base).tools)


def rescore_episode(spec: EnvSpec, episode: Episode) -> tuple[tuple[Assessment, ...], str]:
    """Return (assessments of the inverse-mapped trajectory, how it was rescored).

    An episode without a mutation, or under one without an inverse map, is scored as it is
    (the second value says which). A measurement failure stays unmeasured.
    """
    if episode.termination.is_measurement_failure:
        return unmeasured(spec, episode), "unmeasured"
    base, mutation = split_condition(episode.condition)
    events = episode.events
    how = "as recorded"
    if mutation is not None and get_mutation(mutation).invertible:
        events = invert_trajectory(events, mutation, original_tool_names(spec, episode))
        how = f"inverse map of {mutation}"
    elif mutation is not None and get_mutation(mutation).side == "scorer":
        how = f"original scorers instead of {mutation}"
    seed, profile = episode_context(spec, episode)
    return score_submission(spec, episode.submission, episode.task, seed, profile,
                            episode.digests.get("submission", ""), events, base), how
