"""`agm campaign status`'s per-target table at 80 columns keeps the measurement failures.

The scores are means over measured episodes, so the infrastructure failures they leave out
must stay on screen: a server that died mid-campaign once showed "done 24, agent fail 2, 0.600"
at 80 columns, the 20 infrastructure failures among the 24 left out while the cost stayed.
"""

from __future__ import annotations

import io

from rich.console import Console

from agentmetrology.report.terminal.campaign_tables import target_table
from agentmetrology.store.status import CampaignStatus, Counts


def test_infrastructure_failures_stay_on_screen_at_80_columns() -> None:
    counts = Counts(planned=30, done=24, submitted=2, failed_agent=2, failed_infra=20,
                    cost=0.0123, cost_unknown=20)
    scores = {"ground_truth_f1": {"mean_score": 0.6}, "shape_judge": {"mean_score": 93.25},
              "contract": {"mean_score": 0.5}}
    status = CampaignStatus("c", "r", "p", counts, {"gpt-4.1-mini-2025-04-14": counts},
                            {"gpt-4.1-mini-2025-04-14": scores})
    out = io.StringIO()
    target_table(Console(file=out, width=80, color_system=None),
                 status, {"gpt-4.1-mini-2025-04-14": "0.0123 + 20 unknown"})
    text = out.getvalue()
    assert max(map(len, text.splitlines())) <= 80
    header = next(line for line in text.splitlines() if "planned" in line)
    assert "infra fail" in header and "done" in header
    assert "20" in next(line for line in text.splitlines() if "gpt-4.1-mini" in line)
