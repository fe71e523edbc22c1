"""An unknown agent lists every form the field accepts and is named as the user wrote it.

Before, `targets = ["nobody"]` in a plan said `experiment.targets.agent: unknown agent 'nobody'
(known: rule, l1:always-retry, l1:always-skip, l1:quota-aware)`: no scripted agent (e.g.
`scripted:careful`), no word on models, and a field `.agent` the plan does not have.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.experiment import load_plan
from agentmetrology.run.campaign import CampaignConfigError, parse_campaign

RULES = "rule, l1:always-retry, l1:always-skip, l1:quota-aware"
SCRIPTED = ("scripted:careful, scripted:off_by_one, scripted:no_dedup, scripted:keeps_totals, "
            "scripted:single_pass, scripted:empty_submit, scripted:fabricator, "
            "scripted:never_submits")
CAMPAIGN = ('[campaign]\nname = "c"\ntasks = ["T1_single_page"]\nseeds = "0-1"\nlevels = ["L0"]\n'
            '[[targets]]\nname = "a"\nkind = "{kind}"\nagent = "{agent}"\n')


def _problems(error: pytest.ExceptionInfo[CampaignConfigError]) -> list[str]:
    return str(error.value).splitlines()


@pytest.mark.parametrize("kind,agent", [("rule", "nobody"), ("scripted", "scripted:nobody")])
def test_a_campaign_target_lists_rule_scripted_and_llm_forms(kind: str, agent: str) -> None:
    with pytest.raises(CampaignConfigError) as info:
        parse_campaign(CAMPAIGN.format(kind=kind, agent=agent), "campaign.toml")
    assert _problems(info) == [
        f"campaign.toml:9: targets[0].agent: unknown agent {agent!r}; environment 'comtrade' "
        f'has kind = "rule" agents {RULES} and kind = "scripted" agents {SCRIPTED}; a model is '
        'a target of kind = "llm" with model = "MODEL"']


def test_a_plan_names_its_targets_field_and_lists_every_agent(tmp_path: Path) -> None:
    plan = tmp_path / "p.toml"
    plan.write_text('[experiment]\nname = "x"\nhypothesis = "h"\nkind = "ab"\n'
                    'targets = ["rule", "nobody"]\n')
    with pytest.raises(CampaignConfigError) as info:
        load_plan(plan)
    assert _problems(info) == [
        f"p.toml:5: experiment.targets: unknown agent 'nobody'; environment 'comtrade' has "
        f"{RULES}, {SCRIPTED}; a plan's targets are model-free (a model runs as `agm run "
        '--agent llm:MODEL` or in a campaign target of kind = "llm")']
