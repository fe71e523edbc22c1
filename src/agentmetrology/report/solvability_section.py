"""The audit report's "Solvability" section: which answers one response cannot hold."""

from __future__ import annotations

from typing import Any

from agentmetrology.report.blocks import Doc, code
from agentmetrology.report.numberguard import NumberGuard


def solvability_section(d: Doc, g: NumberGuard, stage: dict[str, Any]) -> None:
    """Add the section: the estimate, then one row per task, level and budget under a cap."""
    d.h("Solvability")
    if stage.get("status") == "not probed":
        d.p(f"Not probed: {stage['reason']}.")
        return
    budgets = ", ".join(g.fmt(b) for b in stage["budgets"])
    d.p(f"Where the model writes the answer (decision {code(stage['emission_decision'])}), one "
        f"response must hold it. Output budgets: {budgets} tokens; tokens estimated as UTF-8 "
        f"bytes / {g.fmt(stage['bytes_per_token'])}, worst of {g.fmt(stage['seeds'])} seeds. "
        "The F1 cap assumes every emitted row is right (precision 1, recall = rows that fit / "
        "rows).")
    if not stage["flagged"]:
        d.p("Every task's answer fits every budget: no cap below 1.")
        return
    d.p("A cap below 1 makes the task not a fair reliability measurement at that budget: the "
        "score measures the budget, not the model.")
    d.table(["task", "level", "budget (tokens)", "rows that fit", "rows", "F1 cap"],
            [[code(f['task']), code(f['level']), g.fmt(f["budget"]), g.fmt(f["rows_fit"]),
              g.fmt(f["rows"]), g.fmt(f["f1_cap"])] for f in stage["flagged"]])
