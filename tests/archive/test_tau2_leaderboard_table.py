"""The tau2 leaderboard table at 80 columns: submission names whole and literal, every number
whole; a column that does not fit is left out and named. Before, rich cut the names to
`gpt-4.1-…` (two submissions of one model in a domain could not be told apart), the header to
`recomput…`, and read a name holding `[bold]` as markup."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console

from agentmetrology.report.terminal.archive_tables import print_leaderboard

NAMES = ("gpt-4.1-2025-04-14-airline-1trial", "gpt-4.1-2025-04-14-airline-4trials",
         "[bold]qwen[/bold]")


def _row(name: str, rate: float) -> dict[str, Any]:
    return {"submission": name, "reported": rate, "recomputed": 0.5, "regraded": 0.45,
            "where_doing_nothing_fails": 0.429, "cost_unpriced": False,
            "agent_cost_per_simulation": 0.0392}


def _printed(regrade: bool) -> str:
    doc = {"submissions": 3,
           "domains": {"airline": {"rows": [_row(n, 0.625) for n in NAMES]}}}
    out = io.StringIO()
    print_leaderboard(Console(file=out, width=80, color_system=None), doc, regrade)
    return out.getvalue()


def test_names_and_numbers_are_never_cut_at_80_columns() -> None:
    for regrade in (False, True):
        text = _printed(regrade)
        assert "…" not in text
        assert all(line == "" or len(line) <= 80 for line in text.splitlines())
        for name in NAMES:
            assert name in text, (name, text)
        assert "0.500" in text and ("0.450" if regrade else "0.625") in text
        if regrade:
            assert "not shown at this width" in text and "leaderboard.json" in text
            assert "re-graded" in text.split("not shown")[0]  # asked for: kept
