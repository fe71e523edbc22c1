"""Plans: deterministic, balanced order; the digest binds what changes episodes, not budgets."""

from __future__ import annotations

from agentmetrology.run.campaign import parse_campaign, plan_campaign
from run.campaign.campaign_fixtures import model_free


def test_plan_is_deterministic_and_balanced() -> None:
    config = parse_campaign(model_free())
    plan = plan_campaign(config)
    keys = [p.key for p in plan.administrations]
    assert len(keys) == len(set(keys)) == 3 * 2 * 2 * 2  # targets x tasks x seeds x levels
    assert [p.ordinal for p in plan.administrations] == list(range(len(keys)))
    # Targets innermost: any prefix of the plan measures every target on the same cells.
    first = keys[:3]
    assert [k.target for k in first] == ["rule", "careful", "keeps_totals"]
    assert len({(k.task, k.seed, k.level) for k in first}) == 1
    assert [k.seed for k in keys[:12]] == [0] * 12
    again = plan_campaign(parse_campaign(model_free()))
    assert again.digest == plan.digest and [p.key for p in again.administrations] == keys
    assert plan.bindings[0].scorer_versions == {"ground_truth_f1": "1.1.0",
                                                "shape_judge": "1.0.0"}


def test_digest_ignores_budgets_but_binds_episode_limits() -> None:
    base = plan_campaign(parse_campaign(model_free())).digest
    budget = model_free().replace("max_steps = 30", "max_steps = 30\nmax_tokens = 1000")
    assert plan_campaign(parse_campaign(budget)).digest == base
    steps = model_free().replace("max_steps = 30", "max_steps = 12")
    assert plan_campaign(parse_campaign(steps)).digest != base
    agent = model_free().replace("scripted:keeps_totals", "scripted:no_dedup")
    assert plan_campaign(parse_campaign(agent)).digest != base


def test_per_target_levels() -> None:
    text = model_free().replace('agent = "scripted:careful"',
                                'agent = "scripted:careful"\nlevels = ["L1"]')
    plan = plan_campaign(parse_campaign(text))
    levels = {(p.key.target, p.key.level) for p in plan.administrations}
    assert ("careful", "L1") in levels and ("careful", "L0") not in levels
    assert ("rule", "L0") in levels and ("rule", "L1") not in levels
