"""The summary that ends `agm run`: per agent x level, the outcome scorer's mean with its CI,
worst case, n measured and measurement failures excluded (issue 39 item 5).

The numbers come from `stats.table.summarize_cell` (seeded percentile bootstrap, seed 0), the
same computation as `agm stats summarize`; a measurement failure is never a value here.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from agentmetrology.cli.console import make_console
from agentmetrology.records.environment import EnvSpec
from agentmetrology.report.terminal.table_fit import Col, fit_table
from agentmetrology.stats.bootstrap import DEFAULT_RESAMPLES
from agentmetrology.stats.table import summarize_cell

SUMMARY_COLS = [Col("agent", 9), Col("level", 9), Col("n", 8, True), Col("mean", 9, True),
                Col("95% CI", 6, True), Col("worst", 7, True), Col("excluded", 8, True)]


def _score_path(spec: EnvSpec) -> tuple[str, str]:
    """Return (label, field) of the outcome scorer's score in a row, as the run table shows it
    (an environment's display may name it, e.g. ground_truth.f1)."""
    label = spec.grade_scorer.label
    shown = spec.display.columns if spec.display else ()
    path = next((c.path for c in shown if c.path.startswith(f"{label}.")), f"{label}.score")
    return label, path.split(".", 1)[1]


def _value(row: dict[str, Any], label: str, field: str) -> float | None:
    """Return the row's outcome score, or None when it was not measured."""
    if row.get("measurement_failure"):
        return None
    assessed = row.get(label)
    score = assessed.get(field) if isinstance(assessed, dict) else None
    return float(score) if isinstance(score, int | float) else None


def print_run_summary(spec: EnvSpec, rows: list[dict[str, Any]]) -> None:
    """Print the per agent x level summary of the outcome scorer under a run's table."""
    label, field = _score_path(spec)
    groups: dict[tuple[str, str], list[float | None]] = defaultdict(list)
    for r in rows:
        groups[(str(r["agent"]), str(r["level"]))].append(_value(r, label, field))
    cells = []
    for (agent, level), values in groups.items():
        measured = [v for v in values if v is not None]
        excluded = str(len(values) - len(measured))
        if not measured:
            cells.append([agent, level, "0", "—", "—", "—", excluded])
            continue
        s = summarize_cell(measured, seed=0)
        ci = s.mean.interval
        cells.append([agent, level, str(s.n), f"{s.mean.value:.3f}",
                      "—" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]",
                      f"{s.worst.value:.3f}", excluded])
    console = make_console()
    console.print(fit_table(console, f"summary: {label}.{field} (the outcome scorer)", SUMMARY_COLS,
                            cells, markup=False))
    console.print(f"mean over measured episodes, 95% CI: percentile bootstrap "
                  f"({DEFAULT_RESAMPLES} resamples, seed 0); worst: the lowest measured "
                  "episode; excluded: measurement failures, never scored", markup=False,
                  emoji=False)
