"""The command an interrupted run names (cli/run_again.py): the parameters as given, defaults
left out, shell-quoted, credentials redacted; SIGTERM read as Ctrl-C only within the block."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from agentmetrology.cli.run_again import same_command, stop_on_sigterm

app = typer.Typer(add_completion=False)


@app.command()
def cmd(ctx: typer.Context, file: Path = typer.Argument(...),
        store: Path = typer.Option(None, "--store"),
        task_arg: list[str] = typer.Option([], "-T", "--task-arg"),
        epochs: int = typer.Option(1, "--epochs"),
        base_url: str = typer.Option(None, "--base-url"),
        quiet: bool = typer.Option(False, "--quiet")) -> None:
    """Print the command that would resume this one."""
    print(same_command("agm x run", ctx))


@pytest.mark.parametrize(("args", "said"), [
    (["f.toml"], "agm x run f.toml"),
    (["my plan.toml", "--quiet", "--store", "s", "--epochs", "1"],
     "agm x run 'my plan.toml' --store s --quiet"),  # --epochs 1 is the default
    (["f", "-T", "seed=3", "-T", "level=L0", "--epochs", "2"],
     "agm x run f --task-arg seed=3 --task-arg level=L0 --epochs 2"),
    (["f", "--base-url", "http://me:sk-secret-123456@host/v1"],
     "agm x run f --base-url http://[redacted]@host/v1"),
])
def test_the_same_command(args: list[str], said: str) -> None:
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == [said]


def test_sigterm_is_ctrl_c_only_within_the_block() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with stop_on_sigterm() as stop, pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGTERM)
        for _ in range(1000):  # the handler runs between bytecodes
            pass
    assert stop.terminated and stop.code == 143 and stop.said() == "interrupted (SIGTERM)"
    assert signal.getsignal(signal.SIGTERM) is before
