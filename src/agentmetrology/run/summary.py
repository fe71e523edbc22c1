"""What `agm run` adds up to: per agent x level, the outcome scorer's mean with its CI, worst
case, n measured and measurement failures excluded (issue 39 item 5).

The numbers come from `stats.table.summarize_cell` (seeded percentile bootstrap, seed 0), the
same computation as `agm stats summarize`; a measurement failure is never a value here.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from agentmetrology.records.environment import EnvSpec
from agentmetrology.stats.table import CellSummary, summarize_cell

SUMMARY_SEED = 0  # the analysis seed of the run summary's bootstrap


@dataclass(frozen=True, slots=True)
class RunCell:
    """One agent x level of a run: its summary over measured episodes (None if none was) and
    how many episodes were excluded as measurement failures or unscored."""

    agent: str
    level: str
    summary: CellSummary | None
    excluded: int


def score_path(spec: EnvSpec) -> tuple[str, str]:
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


def summarize_run(spec: EnvSpec, rows: list[dict[str, Any]]) -> list[RunCell]:
    """Return the outcome scorer's summary per agent x level of a run's result rows."""
    label, field = score_path(spec)
    groups: dict[tuple[str, str], list[float | None]] = defaultdict(list)
    for r in rows:
        groups[(str(r["agent"]), str(r["level"]))].append(_value(r, label, field))
    cells = []
    for (agent, level), values in groups.items():
        measured = [v for v in values if v is not None]
        summary = summarize_cell(measured, seed=SUMMARY_SEED) if measured else None
        cells.append(RunCell(agent, level, summary, len(values) - len(measured)))
    return cells
