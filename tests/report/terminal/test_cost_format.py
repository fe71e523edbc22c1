"""Costs in terminal tables and lines print in one format, six decimals (report/money.py).

Before, `agm campaign status` printed "4e-05" in the cost column beside "0.0001" (4 decimals, or
2 significant digits below 0.0001), and `agm run`'s table printed a known 0.000015 as "0.0000".
An unknown cost still never prints as a number.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from agentmetrology.report.money import money
from agentmetrology.report.terminal.campaign_text import cost_text, print_status
from agentmetrology.report.terminal.run_table import cost_text as row_cost
from agentmetrology.store.status import CampaignStatus, Counts


def test_the_campaign_cost_column_has_one_format() -> None:
    cheap, dearer = Counts(planned=1, done=1, cost=4e-05), Counts(planned=1, done=1, cost=0.0001)
    unknown = Counts(planned=1, done=1, cost=0.0002, cost_unknown=1)
    out = io.StringIO()
    print_status(Console(file=out, width=200, color_system=None),
                 CampaignStatus("c", "r", "d", cheap.plus(dearer).plus(unknown),
                                {"a": cheap, "b": dearer, "u": unknown}))
    text = out.getvalue()
    cells = {line.split()[0]: line.split("│")[-1].strip() for line in text.splitlines()
             if line.startswith((" a ", " b ", " u "))}
    assert cells == {"a": "0.000040", "b": "0.000100", "u": "unknown (1)"}
    assert "cost unknown (1 without a cost, 0.000340 known)" in text.splitlines()[0]
    assert "e-0" not in text


@pytest.mark.parametrize(("cost", "text"), [
    (0.0, "0.000000"), (-0.0, "0.000000"), (4e-05, "0.000040"), (0.0001, "0.000100"),
    (1.5e-05, "0.000015"), (0.25, "0.250000"), (12.3456789, "12.345679"),
    (1e-07, "<0.000001"),  # not 0: a cost that is not 0 never prints as 0
])
def test_money(cost: float, text: str) -> None:
    assert money(cost) == text


def test_run_rows_and_totals_share_the_format() -> None:
    assert row_cost({"model_attempts": 3, "cost": 1.5e-05}) == "0.000015"  # was 0.0000
    assert row_cost({"model_attempts": 3, "cost": None}) == "unknown"
    assert row_cost({"model_attempts": 0, "cost": 0.0}) == "none"
    assert cost_text(4e-05, 0) == "0.000040"  # was 4e-05
    assert cost_text(4e-05, 2) == "unknown (2 without a cost, 0.000040 known)"
    assert cost_text(4e-05, 2, short=True) == "unknown (2)"


def test_the_viewer_and_the_judge_line_print_costs_as_the_tables_do() -> None:
    # The viewer printed 4 decimals, and 2 significant digits below 0.0001 ("4e-05", beside a
    # table's "0.000040"); the diagnose judge line 4 decimals ("0.0000" for a known 4e-05).
    from agentmetrology.report.terminal.diagnose_summary import money as judge_money
    from agentmetrology.view.html import cost_text

    for cost, text in ((4e-05, "0.000040"), (0.0001, "0.000100"), (0.0, "0.000000"),
                       (1.5e-07, "<0.000001"), (12.3456789, "12.345679")):
        assert cost_text(cost) == text.replace("<", "&lt;")
        assert judge_money(cost) == text
    assert cost_text(None) == '<span class="null">unknown</span>'
