"""Run a shipped experiment plan through the CLI and read its experiment.json back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from agentmetrology.cli.main import app


def run_and_report(plan: Path, tmp_path: Path) -> dict[str, Any]:
    """Run `plan` into a fresh store, report it and return the parsed experiment.json."""
    return run_and_report_text(plan, tmp_path)[1]


def run_and_report_text(plan: Path, tmp_path: Path,
                        columns: int = 80) -> tuple[str, dict[str, Any], str]:
    """Run `plan` into a fresh store and report it at `columns` wide; return the report
    command's output, the parsed experiment.json and report.md."""
    store, out = str(tmp_path / "s"), tmp_path / "o"
    said = ""
    for cmd in (["run", str(plan), "--store", store],
                ["report", str(plan), "--store", store, "--out", str(out)]):
        r = CliRunner().invoke(app, ["experiment", *cmd], env={"COLUMNS": str(columns)})
        assert r.exit_code == 0, r.output
        said = r.output
    doc: dict[str, Any] = json.loads((out / "experiment.json").read_text())
    return said, doc, (out / "report.md").read_text()
