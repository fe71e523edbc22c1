"""A small evidence store built by a real campaign, shared by the `agm` archive tests."""

from __future__ import annotations

from pathlib import Path

from agentmetrology.run.campaign import parse_campaign, plan_campaign
from support.stores import open_store, record_into

CAMPAIGN = """
[campaign]
name = "{name}"
tasks = ["T3_duplicates", "T4_rate_limit_429"]
seeds = "0-1"
levels = ["L0", "L2"]

[limits]
max_steps = 30

[[targets]]
name = "rule"
kind = "rule"

[[targets]]
name = "never"
kind = "scripted"
agent = "scripted:never_submits"

[[targets]]
name = "no_dedup"
kind = "scripted"
agent = "scripted:no_dedup"
"""
RECORDED = 24  # 3 targets x 2 tasks x 2 seeds x 2 levels


def build_store(root: Path, name: str = "agm-test", planned_only: str | None = None) -> Path:
    """Run the campaign inline into a new store; `planned_only` registers a second, unrun one."""
    result = record_into(root, CAMPAIGN.format(name=name), backend="inline")
    assert result.status.complete and result.recorded == RECORDED
    if planned_only:  # registered after the run: the run above saw one campaign only
        with open_store(root) as st:
            config = parse_campaign(CAMPAIGN.format(name=planned_only).replace(
                '"0-1"', '"5"'))
            plan = plan_campaign(config)
            st.register_campaign(config.name, plan.digest, config.to_json(), plan.bindings)
    return root
