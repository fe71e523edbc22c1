"""Counterfactual rescoring (scoring/rescore.py, docs/diagnose.md step 4), case by case.

The same recorded trajectory is scored again without rerunning the agent: under an invertible
mutation its events are mapped back to the original tool names; under a scorer-side mutation
the original scorers replace the mutated ones; anything else is scored as recorded. A
measurement failure stays unmeasured. The evidence digest is the episode's own.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from agentmetrology.envs.registry import get_env
from agentmetrology.records.episode import Episode, Termination
from agentmetrology.run.episode import run_episode
from agentmetrology.scoring.episode import score_episode, score_submission, unmeasured
from agentmetrology.scoring.rescore import not_rescorable, original_tool_names, rescore_episode

RO = get_env("researchops")


def _episode(condition: str, agent: str = "scripted:careful", task: str = "lr_1") -> Episode:
    return run_episode(RO, task, 0, agent, "L2", condition=condition)


def test_an_unmutated_episode_is_scored_as_recorded() -> None:
    ep = _episode("clean")
    got, how = rescore_episode(RO, ep)
    assert how == "as recorded"
    assert got == score_episode(RO, ep)
    assert {a.evidence_digest for a in got} == {ep.digests["submission"]}


def test_an_alias_trajectory_is_mapped_back_and_scores_as_the_original() -> None:
    clean, alias = _episode("clean"), _episode("mut:alias")
    recorded = {a.scorer: a.score for a in score_episode(RO, alias)}
    got, how = rescore_episode(RO, alias)
    assert how == "inverse map of alias"
    assert recorded["composite_verifier"] == 0.555  # the renamed tools earned no credit
    assert {a.scorer: a.score for a in got} == {a.scorer: a.score
                                                 for a in score_episode(RO, clean)}
    assert {a.evidence_digest for a in got} == {alias.digests["submission"]}


def test_a_scorer_side_mutation_is_rescored_with_the_original_scorers() -> None:
    ep = _episode("mut:rubric")
    recorded = {a.scorer: a.scorer_version for a in score_episode(RO, ep)}
    got, how = rescore_episode(RO, ep)
    assert how == "original scorers instead of rubric"
    assert recorded["composite_verifier"] == "1.0.0+rubric"
    assert {a.scorer: a.scorer_version for a in got}["composite_verifier"] == "1.0.0"
    assert got == score_submission(RO, ep.submission, ep.task, 0, "default",
                                   ep.digests["submission"], ep.events, "clean")


def test_a_mutation_without_an_inverse_map_is_scored_as_recorded() -> None:
    ep = _episode("mut:wording")
    got, how = rescore_episode(RO, ep)
    assert how == "as recorded"
    assert got == score_episode(RO, ep)


@pytest.mark.parametrize("kind", ["infra_error", "cancelled"])
def test_a_measurement_failure_stays_unmeasured(kind: str) -> None:
    ep = replace(_episode("mut:alias"), termination=Termination(kind, "endpoint down"))
    got, how = rescore_episode(RO, ep)
    assert how == "unmeasured"
    assert got == unmeasured(RO, ep)
    assert all(a.status == "UNKNOWN" and a.score is None for a in got)


def test_an_episode_without_a_recorded_profile_takes_the_environments_first() -> None:
    ep = _episode("mut:alias")
    bare = replace(ep, meta={k: v for k, v in ep.meta.items() if k != "profile"})
    assert rescore_episode(RO, bare) == rescore_episode(RO, ep)
    assert original_tool_names(RO, bare) == original_tool_names(RO, ep)
    assert original_tool_names(RO, ep) == list(RO.make("lr_1", 0, "default", "clean").tools)


def test_a_comtrade_episode_without_a_submission_digest_is_cited_as_empty() -> None:
    spec = get_env("comtrade")
    ep = run_episode(spec, "T3_duplicates", 0, "scripted:careful", "L2",
                     condition="mut:alias")
    bare = replace(ep, digests={k: v for k, v in ep.digests.items() if k != "submission"})
    got, how = rescore_episode(spec, bare)
    assert how == "inverse map of alias"
    assert {a.evidence_digest for a in got} == {""}
    with_digest, _ = rescore_episode(spec, ep)
    assert {a.evidence_digest for a in with_digest} == {ep.digests["submission"]}
    assert [a.score for a in got] == [a.score for a in with_digest]


def test_an_administration_its_environment_lacks_is_not_rescorable() -> None:
    ep = _episode("mut:alias")
    assert not_rescorable(RO, ep) == ""
    why = "not rescorable: its {} is not {} environment 'researchops'"
    assert not_rescorable(RO, replace(ep, task="lr_0")) == why.format("task", "a task of")
    assert not_rescorable(RO, replace(ep, meta={"profile": "x"})) == why.format(
        "data profile", "one of")
    assert not_rescorable(RO, replace(ep, condition="x+mut:alias")) == why.format(
        "base condition", "one of")
