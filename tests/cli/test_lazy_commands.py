"""The root command table: a command's module is imported when it runs, help still lists all."""

from __future__ import annotations

import subprocess
import sys

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from agentmetrology.cli.lazy_commands import COMMANDS, Lazy, LazyCommands
from agentmetrology.cli.main import app
from agentmetrology.runtime.registry import Registry

PROBE = """
import sys
from agentmetrology.cli import main
sys.argv = ["agm", *sys.argv[1:]]
try:
    main.main()
except SystemExit:
    pass
heavy = ["agentmetrology.cli.archive_cmd", "agentmetrology.cli.env_cmd",
         "agentmetrology.run.campaign.execute", "agentmetrology.agents.llm.client",
         "agentmetrology.view.app", "agentmetrology.audit.env_audit", "ray"]
print(" ".join(m for m in heavy if m in sys.modules), file=sys.stderr)
"""


def _loaded(*argv: str) -> list[str]:
    res = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                         timeout=120)
    return res.stderr.strip().splitlines()[-1].split() if res.stderr.strip() else []


def test_version_and_status_import_no_other_command(tmp_path: object) -> None:
    assert _loaded("--version") == []
    assert _loaded("campaign", "status", "--help") == []
    # the positive control: a command's own module is imported when it runs
    assert "agentmetrology.cli.env_cmd" in _loaded("envs", "--help")


def test_help_lists_every_command_in_the_table_order() -> None:
    res = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "120"})
    assert res.exit_code == 0
    listed = [line.split()[0] for line in res.stdout.split("Commands:")[1].splitlines()
              if line.strip()]
    assert listed == COMMANDS.names(plugins=False)
    group = typer.main.get_command(app)
    assert list(group.commands) == listed  # type: ignore[attr-defined]


def test_the_table_builds_commands_on_first_access_only() -> None:
    built: list[str] = []
    table: Registry[Lazy] = Registry("command")
    table.add("envs", Lazy("envs", "agentmetrology.cli.env_cmd", "envs_cmd"))
    table.add("stats", Lazy("stats", "agentmetrology.cli.stats_cmd", "stats_app", "Statistics."))
    commands = LazyCommands({}, table)
    assert list(commands) == ["envs", "stats"] and "stats" in commands and len(commands) == 2
    assert commands._loaded == {}  # listing built nothing
    stats = commands["stats"]
    built.extend(commands._loaded)
    assert built == ["stats"] and stats.help == "Statistics." and "compare" in stats.commands
    assert commands.get("nope") is None
    with pytest.raises(KeyError):
        commands["nope"]
    commands["extra"] = stats
    assert list(commands) == ["envs", "stats", "extra"]
