"""A float option given as `-0` is zero, printed as 0: before, `agm stats summarize --tau -0`
printed `Rel@-0` in the table and `"tau": -0.0` in the JSON (and `agm diagnose --tau -0` said
`--tau -0.0`); the option callbacks in cli/args.py make -0.0 0.0 where the option is parsed."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.args import finite, plain_zero
from agentmetrology.cli.stats_cmd import stats_app
from support.results_rows import write_runs

runner = CliRunner()
SUMMARIZE = ("summarize", "--value", "ground_truth.f1", "--group", "agent", "--range", "0,1")
COMPARE = ("compare", "--value", "ground_truth.f1", "--group", "agent", "--a", "rule", "--b",
           "llm", "--pair-by", "task,seed", "--range", "0,1")


def _out(runs: Path, command: tuple[str, ...], *extra: str) -> str:
    result = runner.invoke(stats_app, [command[0], str(runs), *command[1:], *extra],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("callback", [plain_zero, finite])
def test_negative_zero_becomes_zero_and_nothing_else_changes(callback: object) -> None:
    assert callable(callback)
    zero = callback(-0.0)
    assert zero == 0.0 and math.copysign(1.0, zero) == 1.0
    assert [callback(v) for v in (0.0, 0.25, -0.5, 1e-300, None)] == [0.0, 0.25, -0.5, 1e-300,
                                                                      None]


def test_summarize_prints_tau_minus_zero_as_zero(tmp_path: Path) -> None:
    runs = write_runs(tmp_path / "runs.jsonl")
    table = _out(runs, SUMMARIZE, "--tau", "-0")
    assert "Rel@0 " in table and "-0" not in table
    as_json = _out(runs, SUMMARIZE, "--tau", "-0", "--json")
    assert '"tau": 0.0' in as_json and "-0" not in as_json
    assert as_json == _out(runs, SUMMARIZE, "--tau", "0", "--json")


def test_compare_prints_tau_minus_zero_as_zero(tmp_path: Path) -> None:
    runs = write_runs(tmp_path / "runs.jsonl")
    as_json = _out(runs, COMPARE, "--tau", "-0", "--json")
    assert "-0.0" not in as_json
    assert as_json == _out(runs, COMPARE, "--tau", "0", "--json")
