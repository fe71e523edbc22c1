"""The card and `--help` at 80 columns: row names, scorer names and option names stay whole."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from support.card_text import assert_card_whole


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("audit")
    res = CliRunner().invoke(app, ["audit", "comtrade", "--seeds", "0-0", "--out", str(out)],
                             env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    (out / "stdout.txt").write_text(res.stdout)
    return out


def test_card_at_80_columns_through_the_cli(audited: Path) -> None:
    card = json.loads((audited / "card.json").read_text())
    assert_card_whole((audited / "stdout.txt").read_text(), card, 80)


@pytest.mark.parametrize("command", ["run", "audit"])
def test_help_at_80_columns_shows_every_option_name_whole(command: str) -> None:
    res = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "80"})
    assert res.exit_code == 0
    assert "…" not in res.stdout
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    names = [o for p in commands[command].params for o in (*p.opts, *p.secondary_opts)
             if o.startswith("-")]
    assert "--help" not in names and len(names) > 5
    for name in [*names, "--help"]:
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", res.stdout), name
