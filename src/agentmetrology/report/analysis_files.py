"""Render a diagnose or experiment analysis and write it beside its evidence binding:
diagnose.json / experiment.json, report.md, report.html and evidence.json.

A report the number guard refuses or a folder that cannot be written is a UserError in one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentmetrology.archive.report_qualify import write_binding
from agentmetrology.records.errors import UserError
from agentmetrology.report.diagnose_report import render_diagnose_report
from agentmetrology.report.experiment_report import render_experiment_report
from agentmetrology.report.numberguard import NumberGuardError


def write_diagnose(out: Path, doc: dict[str, Any], evidence: dict[str, Any]) -> None:
    """Render the diagnose report; write diagnose.json, report.md, report.html, evidence.json."""
    try:
        markdown, html = render_diagnose_report(doc)
    except NumberGuardError as exc:
        raise UserError(f"report refused by the number guard: {exc}") from exc
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "diagnose.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        (out / "report.md").write_text(markdown)
        (out / "report.html").write_text(html)
        write_binding(out, evidence)  # what `agm evidence qualify` checks
    except OSError as exc:
        raise UserError(f"cannot write into {out}: {exc.strerror or exc}") from exc


def write_experiment(out: Path, doc: dict[str, Any], evidence: dict[str, Any]) -> None:
    """Render the experiment report; write experiment.json, report.md, report.html and
    evidence.json."""
    try:
        md, html = render_experiment_report(doc)
    except NumberGuardError as exc:
        raise UserError(str(exc)) from exc
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "experiment.json").write_text(
            json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n", encoding="utf-8")
        (out / "report.md").write_text(md, encoding="utf-8")
        (out / "report.html").write_text(html, encoding="utf-8")
        write_binding(out, evidence)  # what `agm evidence qualify` checks
    except OSError as exc:
        raise UserError(f"cannot write the report to {out}: {exc}") from exc
