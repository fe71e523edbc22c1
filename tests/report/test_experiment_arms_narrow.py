"""The per-arm table of `agm experiment status` at 80 columns: where `recorded` is dropped
(deaths and skips outlast it), the coverage means still say their n under the table."""

from __future__ import annotations

from io import StringIO
from typing import Any

from rich.console import Console

from agentmetrology.report.terminal.experiment_tables import print_arms


def _rows() -> list[dict[str, Any]]:
    return [{"level": "L2", "agent": "rule:always_retry", "arm": "stress:squeeze:slack0",
             "recorded": 20, "planned": 20, "coverage": 0.812, "coverage_n": 20,
             "quota_deaths": 3, "skips": 12, "episodes_with_skip": 7},
            {"level": "L2", "agent": "rule:quota_aware", "arm": "stress:escalating",
             "recorded": 20, "planned": 20, "coverage": 0.9, "coverage_n": 20,
             "quota_deaths": 0, "skips": 2, "episodes_with_skip": 2}]


def _printed(rows: list[dict[str, Any]], width: int) -> str:
    out = StringIO()
    print_arms(Console(file=out, width=width), rows)
    return " ".join(out.getvalue().split())


def test_a_dropped_recorded_column_is_said_under_the_table() -> None:
    # at 80 columns the table showed coverage 0.812 and 0.900 with no n anywhere
    text = _printed(_rows(), 80)
    assert "not shown at this width: recorded" in text
    assert "coverage over n = 20 recorded episodes per arm (of 20 planned)" in text
    rows = _rows()
    rows[1].update(recorded=19, coverage_n=19)
    text = _printed(rows, 80)
    assert ("coverage of rule:quota_aware at L2 in stress:escalating: n = 19 recorded of 20 "
            "planned") in text


def test_a_shown_recorded_column_is_not_said_again() -> None:
    text = _printed(_rows(), 160)
    assert "20/20" in text and "coverage over n" not in text
