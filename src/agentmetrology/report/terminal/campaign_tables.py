"""The text tables of `agm campaign status`: per target, and per target × level × condition.

Both fit the terminal through `table_fit`: a name or number is never cut; columns that do not
fit are left out, lowest priority first, and the caption names them (`--json` has everything).
The outcome (ground-truth) scorer is the first scorer column and the last to go.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from agentmetrology.report.terminal.scorer_order import outcome_first
from agentmetrology.report.terminal.table_fit import Col, fit_table
from agentmetrology.store import CampaignStatus
from agentmetrology.store.status import Cell, CellScore


def _print(console: Console, table: Table) -> None:
    table.show_edge = False  # the status tables' look since the first version
    console.print(table)


def _mean(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def target_table(console: Console, s: CampaignStatus, cost: dict[str, str]) -> None:
    """Print one row per target: counts, cost (`cost` holds each target's text), mean scores."""
    scorers = outcome_first({sc for per in s.scores.values() for sc in per})
    cols = [Col("target", 10), Col("planned", 7, True), Col("done", 9, True),
            Col("submitted", 3, True), Col("agent fail", 6, True),
            # the episodes the scores leave out (measurement failures): kept as long as the
            # done count, never dropped before the cost (an 80-column table hid 20 of them)
            Col("infra fail", 9, True),
            Col("remaining", 5, True), Col("not launched", 2, True),
            Col("interrupted", 2, True), Col("cost", 7, True),
            *(Col(sc, 8 if i == 0 else 5, True) for i, sc in enumerate(scorers))]
    rows = []
    for name, c in s.targets.items():
        means = [s.scores.get(name, {}).get(sc, {}).get("mean_score") for sc in scorers]
        rows.append([name, str(c.planned), str(c.done), str(c.submitted), str(c.failed_agent),
                     str(c.failed_infra + c.errored), str(c.remaining), str(c.not_launched),
                     str(c.interrupted_attempts), cost[name], *(_mean(m) for m in means)])
    _print(console, fit_table(console, "per target (scores: mean over measured episodes)", cols,
                              rows))


def cell_table(console: Console, cells: dict[Cell, dict[str, CellScore]]) -> None:
    """Print mean scores per target × level × condition with n and the excluded episodes.

    n counts recorded episodes; excluded are those without a measured score (measurement
    failures, UNKNOWN or INVALID). One `excluded` column when every scorer excludes the same
    episodes, else one per scorer.
    """
    if not cells:
        return
    scorers = outcome_first({sc for per in cells.values() for sc in per})
    shared = all(len({per[sc].excluded for sc in per}) <= 1 for per in cells.values())
    cols = [Col("target", 10), Col("level", 9), Col("condition", 9), Col("n", 9, True)]
    for i, sc in enumerate(scorers):
        cols.append(Col(sc, 8 if i == 0 else 4, True))
        if not shared:
            cols.append(Col(f"excluded {sc}", 7 if i == 0 else 3, True))
    if shared:
        cols.append(Col("excluded", 7, True))
    rows = []
    for (target, level, condition), per in cells.items():
        n = max(c.n for c in per.values())
        row = [target, level, condition, str(n)]
        for sc in scorers:
            c = per.get(sc, CellScore())
            row.append(_mean(c.mean))
            if not shared:
                row.append(str(c.excluded))
        if shared:
            row.append(str(next(iter(per.values())).excluded if per else 0))
        rows.append(row)
    _print(console, fit_table(console, "mean score per target × level × condition", cols, rows))
