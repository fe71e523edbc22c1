"""Run a shipped experiment plan through the CLI and read its experiment.json back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from agentmetrology.cli.main import app


def run_and_report(plan: Path, tmp_path: Path) -> dict[str, Any]:
    """Run `plan` into a fresh store, report it and return the parsed experiment.json."""
    store, out = str(tmp_path / "s"), str(tmp_path / "o")
    for cmd in (["run", str(plan), "--store", store],
                ["report", str(plan), "--store", store, "--out", out]):
        r = CliRunner().invoke(app, ["experiment", *cmd])
        assert r.exit_code == 0, r.output
    doc: dict[str, Any] = json.loads((tmp_path / "o" / "experiment.json").read_text())
    return doc
