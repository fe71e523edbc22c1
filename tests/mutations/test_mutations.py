"""Mutations over the tool protocol (docs/diagnose.md): what each changes and what it must not."""

import json

import pytest

from agentmetrology.mutations import (
    MUTATIONS,
    get_mutation,
    inverse_map,
    invert_trajectory,
    mutated_condition,
    name_map,
    split_condition,
    unsupported,
)
from agentmetrology.records.canonical import canonical_json
from agentmetrology.run.episode import canonical_condition, make_env, run_one
from agentmetrology.scoring.rescore import original_tool_names, rescore_episode
from support.comtrade_runs import COMTRADE

TOOLS = ["fetch_page", "get_task_info", "submit_results"]


def test_catalog_names_every_mutation_of_the_spec() -> None:
    assert set(MUTATIONS) == {"wording", "alias", "format", "misleading", "rubric",
                              "constraint", "proxy_incentive", "observation_access", "repeat"}
    assert all(m.version for m in MUTATIONS.values())
    with pytest.raises(ValueError, match="unknown mutation 'nope'"):
        get_mutation("nope")


def test_condition_names_round_trip() -> None:
    assert mutated_condition("clean", "alias") == "mut:alias"
    assert mutated_condition("stress:constant", "alias") == "stress:constant+mut:alias"
    assert split_condition("mut:alias") == ("clean", "alias")
    assert split_condition("stress:constant+mut:alias") == ("stress:constant", "alias")
    assert split_condition("stress:dose=0.5") == ("stress:dose=0.5", None)
    assert canonical_condition(COMTRADE, "stress:dose=0.50+mut:format") == \
        "stress:dose=0.5+mut:format"


def test_alias_and_misleading_maps_are_bijections_with_inverses() -> None:
    for m in ("alias", "misleading"):
        fwd = name_map(m, TOOLS)
        assert sorted(fwd) == TOOLS and len(set(fwd.values())) == 3
        assert {v: k for k, v in fwd.items()} == inverse_map(m, TOOLS)
    assert all(v.startswith("op_") for v in name_map("alias", TOOLS).values())
    mis = name_map("misleading", TOOLS)
    assert set(mis.values()) == set(TOOLS) and all(k != v for k, v in mis.items())


def test_environment_hooks_are_required_up_front() -> None:
    for name in ("rubric", "constraint", "proxy_incentive", "observation_access"):
        assert "cannot support" in (unsupported(COMTRADE, name) or "")
        with pytest.raises(ValueError, match="cannot support"):
            canonical_condition(COMTRADE, f"mut:{name}")
    assert unsupported(COMTRADE, "alias") is None


def test_alias_renames_what_the_agent_sees_and_keeps_dispatch() -> None:
    env = make_env(COMTRADE, "T3_duplicates", 0, "seeded", "mut:alias")
    shown = name_map("alias", TOOLS)
    assert set(env.tools) == set(shown.values())
    obs = env.tools[shown["fetch_page"]](page=1)
    assert [r["record_id"] for r in obs["rows"]][:2] == ["T3_duplicates-000000",
                                                          "T3_duplicates-000001"]
    base = make_env(COMTRADE, "T3_duplicates", 0, "seeded", "clean")
    assert {t.spec.description for t in env.tools.values()} == \
        {t.spec.description for t in base.tools.values()}


def test_format_keeps_every_value() -> None:
    plain = make_env(COMTRADE, "T6_page_drift", 1, "seeded", "clean").tools["fetch_page"](page=2)
    relaid = make_env(COMTRADE, "T6_page_drift", 1, "seeded", "mut:format").tools[
        "fetch_page"](page=2)
    assert canonical_json(plain) == canonical_json(relaid)  # same values
    assert json.dumps(plain) != json.dumps(relaid)  # another layout


@pytest.mark.parametrize("level", ["L0", "L1", "L2"])
def test_repeat_is_the_identity(level: str) -> None:
    agent = "rule" if level != "L1" else "l1:quota-aware"
    a = run_one(COMTRADE, "T8_mixed_faults", 2, agent, level)
    b = run_one(COMTRADE, "T8_mixed_faults", 2, agent, level, condition="mut:repeat")
    assert b.episode.condition == "mut:repeat"
    assert a.episode.digests == b.episode.digests
    assert [x.score for x in a.assessments] == [x.score for x in b.assessments]


def test_description_readers_survive_alias_name_readers_do_not() -> None:
    careful = run_one(COMTRADE, "T4_rate_limit_429", 0, "scripted:careful", "L2",
                      condition="mut:alias")
    rule = run_one(COMTRADE, "T4_rate_limit_429", 0, "rule", "L2", condition="mut:alias")
    assert careful.assessment("ground_truth").score == 1.0
    assert rule.episode.submission is None and rule.episode.termination.kind == "agent_error"
    # The harness keeps the original names: at L0 the rule's pages still reach the service.
    l0 = run_one(COMTRADE, "T4_rate_limit_429", 0, "scripted:careful", "L0",
                 condition="mut:alias")
    assert l0.assessment("ground_truth").score == 1.0


def test_misleading_is_a_positive_control() -> None:
    clean = run_one(COMTRADE, "T3_duplicates", 0, "rule", "L2")
    misled = run_one(COMTRADE, "T3_duplicates", 0, "rule", "L2", condition="mut:misleading")
    assert clean.assessment("ground_truth").score == 1.0
    assert misled.assessment("ground_truth").score == 0.0


def test_wording_changes_only_the_instructions() -> None:
    from agentmetrology.agents.scaffolds.runner import brief_for
    from agentmetrology.mutations.catalog import WORDING_PREFIX
    from agentmetrology.records.clock import FakeClock

    env = make_env(COMTRADE, "T3_duplicates", 0, "seeded", "mut:wording")
    brief = brief_for(COMTRADE, env, "L2", 30, FakeClock())
    plain = brief_for(COMTRADE, make_env(COMTRADE, "T3_duplicates", 0, "seeded", "clean"),
                      "L2", 30, FakeClock())
    assert brief.task_message == f"{WORDING_PREFIX}\n\n{plain.task_message}"


def test_inverse_map_restores_the_original_trajectory() -> None:
    clean = run_one(COMTRADE, "T3_duplicates", 1, "scripted:careful", "L2").episode
    aliased = run_one(COMTRADE, "T3_duplicates", 1, "scripted:careful", "L2",
                      condition="mut:alias").episode
    assert [e.name for e in aliased.events] != [e.name for e in clean.events]
    back = invert_trajectory(aliased.events, "alias", original_tool_names(COMTRADE, aliased))
    assert [(e.name, e.args) for e in back] == [(e.name, e.args) for e in clean.events]
    rescored, how = rescore_episode(COMTRADE, aliased)
    assert how == "inverse map of alias"
    # ComtradeBench's scorers read only the submission: ground truth unchanged by rescoring.
    assert [a.score for a in rescored] == [a.score for a in run_one(
        COMTRADE, "T3_duplicates", 1, "scripted:careful", "L2").assessments]
