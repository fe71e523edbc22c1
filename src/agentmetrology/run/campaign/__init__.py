"""Campaigns: TOML files, plans of administrations, resumable execution into the evidence store."""

from agentmetrology.run.campaign.config import check_environment, load_campaign, parse_campaign
from agentmetrology.run.campaign.execute import Progress, RunResult, run_campaign
from agentmetrology.run.campaign.plan import Plan, Planned, plan_campaign
from agentmetrology.run.campaign.problems import CampaignConfigError, Problem
from agentmetrology.run.campaign.spec import CampaignConfig, Limits, TargetSpec

__all__ = [
    "CampaignConfig",
    "CampaignConfigError",
    "Limits",
    "Plan",
    "Planned",
    "Problem",
    "Progress",
    "RunResult",
    "TargetSpec",
    "check_environment",
    "load_campaign",
    "parse_campaign",
    "plan_campaign",
    "run_campaign",
]
