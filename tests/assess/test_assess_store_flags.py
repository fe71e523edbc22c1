"""`agm assess --store` refuses the flags that only choose what `--agent` runs (they were
silently ignored): one line, exit 2, and the defaults of `--agent` runs are unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app

runner = CliRunner()


@pytest.mark.parametrize(("flags", "named"), [
    (["--seeds", "0-3"], "--seeds choose the executions --agent runs; --store assesses the "
                         "recorded episodes as they were run: drop it"),
    (["--level", "L0", "--condition", "clean"],
     "--level, --condition choose the executions --agent runs; --store assesses the recorded "
     "episodes as they were run: drop them"),
    (["--profile", "p"], "--profile choose the executions --agent runs"),
])
def test_run_flags_with_store_are_refused(tmp_path: Path, flags: list[str], named: str) -> None:
    res = runner.invoke(app, ["assess", "permission", "--store", str(tmp_path / "none"),
                              *flags])
    assert res.exit_code == 2
    assert res.output.startswith(f"error: {named}") and res.output.count("\n") == 1, res.output
    assert not (tmp_path / "none").exists()


def test_agent_runs_keep_their_defaults() -> None:
    implicit = runner.invoke(app, ["assess", "permission", "--agent", "scripted:within",
                                   "--json"])
    explicit = runner.invoke(app, ["assess", "permission", "--agent", "scripted:within",
                                   "--seeds", "0-9", "--level", "L2", "--condition", "clean",
                                   "--json"])
    assert implicit.exit_code == explicit.exit_code == 0, implicit.output
    doc = json.loads(implicit.output)
    assert doc == json.loads(explicit.output)
    assert (doc["level"], doc["condition"], doc["executions"]) == ("L2", "clean",
                                                                  10 * len(doc["tasks"]))
