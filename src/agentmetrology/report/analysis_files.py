"""Render a diagnose or experiment analysis and write it beside its evidence binding:
diagnose.json / experiment.json, report.md, report.html and evidence.json.

The JSON records the build of agm that wrote it (`build`, report.build_id), which `agm evidence
qualify --recompute` compares first. A report the number guard refuses or a folder that cannot be
written is a UserError in one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentmetrology.archive.report_qualify import write_binding
from agentmetrology.edges.files import refuse_non_directory
from agentmetrology.records.errors import UserError
from agentmetrology.report.archive_files import rendered_digests
from agentmetrology.report.build_id import with_build
from agentmetrology.report.diagnose_report import render_diagnose_report
from agentmetrology.report.experiment_report import render_experiment_report
from agentmetrology.report.numberguard import NumberGuardError


def write_diagnose(out: Path, doc: dict[str, Any], evidence: dict[str, Any]) -> dict[str, Any]:
    """Render the diagnose report; write diagnose.json, report.md, report.html, evidence.json;
    return what diagnose.json holds (the build that wrote it recorded)."""
    refuse_non_directory(out)
    doc = with_build(doc)
    try:
        markdown, html = render_diagnose_report(doc)
    except NumberGuardError as exc:
        raise UserError(f"report refused by the number guard: {exc}") from exc
    _write(out, "diagnose.json", json.dumps(doc, indent=2, sort_keys=True) + "\n",
           {"report.md": markdown, "report.html": html}, evidence,
           "cannot write into {out}: {why}")
    return doc


def write_experiment(out: Path, doc: dict[str, Any], evidence: dict[str, Any]) -> dict[str, Any]:
    """Render the experiment report; write experiment.json, report.md, report.html and
    evidence.json; return what experiment.json holds (the build that wrote it recorded)."""
    refuse_non_directory(out)
    doc = with_build(doc)
    try:
        md, html = render_experiment_report(doc)
    except NumberGuardError as exc:
        raise UserError(str(exc)) from exc
    _write(out, "experiment.json",
           json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n",
           {"report.md": md, "report.html": html}, evidence,
           "cannot write the report to {out}: {why}")
    return doc


def _write(out: Path, name: str, text: str, rendered: dict[str, str],
           evidence: dict[str, Any], refusal: str) -> None:
    """Write the analysis JSON, its rendered files (UTF-8) and the binding beside them, which
    records each rendered file's sha256 (what `agm evidence qualify` checks)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, encoding="utf-8")
        for file, body in rendered.items():
            (out / file).write_text(body, encoding="utf-8")
        write_binding(out, evidence, rendered_digests(rendered))
    except OSError as exc:
        raise UserError(refusal.format(out=out, why=exc.strerror or exc)) from exc
