"""A campaign file nested thousands deep is one problem and exit 2, never a RecursionError."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.run.campaign import parse_campaign
from agentmetrology.run.campaign.problems import CampaignConfigError

DEEP = "a = " + "[" * 100_000 + "]" * 100_000 + "\n"
DEEP_TABLES = '[campaign]\nname = "x"\nb = ' + "{a = " * 5000 + "1" + "}" * 5000 + "\n"


@pytest.mark.parametrize(("text", "line"), [(DEEP, 1), (DEEP_TABLES, 3)])
def test_parse_campaign_reports_deep_nesting_as_one_problem(text: str, line: int) -> None:
    with pytest.raises(CampaignConfigError) as err:
        parse_campaign(text, "deep.toml")
    (problem,) = err.value.problems
    assert "nested too deeply" in problem.message and problem.line == line


@pytest.mark.parametrize("command", ["validate", "run"])
def test_campaign_cli_exits_2_on_deep_nesting(tmp_path: Path, command: str) -> None:
    file = tmp_path / "deep.toml"
    file.write_text(DEEP)
    args = ["campaign", command, str(file)]
    if command == "run":
        args += ["--store", str(tmp_path / "store")]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    assert "deep.toml:1: TOML nested too deeply" in res.stderr
    assert "1 problem; nothing was run" in res.stderr
    assert "Traceback" not in res.output and "RecursionError" not in res.output
    assert not (tmp_path / "store").exists()
