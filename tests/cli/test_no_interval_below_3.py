"""`agm stats summarize` / `compare` and the `agm run` summary over 1 or 2 units: no interval,
and every output says why (stats.bootstrap: a bootstrap over 2 units has 3 distinct resamples).

Before, one pair printed `0.700 95% CI [0.700, 0.700]` and Cliff's delta `[1.000, 1.000]`, one
run `[0.900, 0.900]` and two runs themselves, `[0.200, 0.300]`, as a 95% interval.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from agentmetrology.cli.stats_cmd import stats_app
from agentmetrology.report.terminal.run_table import print_run_summary
from agentmetrology.run.summary import RunCell
from agentmetrology.stats import summarize_cell

runner = CliRunner()
ONE_PAIR = ("no interval: 1 pair; a bootstrap over 1 pair has 1 distinct resample, an interval "
            "needs at least 3 pairs")
ONE_RUN = ("no interval: 1 value; a bootstrap over 1 value has 1 distinct resample, an "
           "interval needs at least 3 values")
TWO_RUNS = ("no interval: 2 values; a bootstrap over 2 values has 3 distinct resamples, an "
            "interval needs at least 3 values")


@pytest.fixture
def csv(tmp_path: Path) -> Path:
    path = tmp_path / "f1.csv"
    path.write_text("agent,task,seed,f1\na,T,0,0.2\na,T,1,0.3\nb,T,0,0.9\n", encoding="utf-8")
    return path


def _invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(stats_app, list(args), env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.stderr
    return result.exit_code, result.stdout


def _flat(text: str) -> str:
    """The output with its table rules and line breaks taken out (a note wraps at 80)."""
    return " ".join(text.replace("│", " ").split())


def test_compare_over_one_pair_prints_no_interval_and_why(csv: Path) -> None:
    args = ("compare", str(csv), "--value", "f1", "--group", "agent", "--a", "a", "--b", "b",
            "--pair-by", "task,seed")
    _, out = _invoke(*args)
    assert "CI [" not in out and "[0.700, 0.700]" not in out and "[1.000, 1.000]" not in out
    flat = _flat(out)
    assert "mean difference 0.700 (no interval)" in flat
    assert "Cliff's delta 1.000 (no interval)" in flat
    assert "(margin 0.1; no interval)" in flat and f"intervals {ONE_PAIR}" in flat
    r = json.loads(_invoke(*args, "--json")[1])["result"]
    for est in ("difference", "equivalence", "cliffs_delta"):
        assert r[est]["interval"] is None and r[est]["interval_note"] == ONE_PAIR
    assert r["equivalence"]["interval90"] is None


def test_compare_excess_flips_over_two_keys_say_no_interval(tmp_path: Path) -> None:
    path = tmp_path / "rerun.csv"
    path.write_text("agent,seed,f1\na,0,1\na,1,0\nb,0,0\nb,1,0\nr,0,1\nr,1,0\n",
                    encoding="utf-8")
    _, out = _invoke("compare", str(path), "--value", "f1", "--group", "agent", "--a", "a",
                     "--b", "b", "--pair-by", "seed", "--rerun-of-a", "r")
    flat = _flat(out)
    assert "excess flip rate 0.500 (no interval) (conditions 0.500, reruns 0.000 via r); " \
           "no interval: 2 units; a bootstrap over 2 units has 3 distinct resamples" in flat


def test_summarize_over_one_and_two_runs_prints_no_interval_and_why(csv: Path) -> None:
    _, out = _invoke("summarize", str(csv), "--value", "f1", "--group", "agent")
    assert "[0.900, 0.900]" not in out and "[0.200, 0.300]" not in out
    assert out.count("no interval  ") == 2  # the CI cell of each group
    flat = _flat(out)
    assert f"CI of agent=b: {ONE_RUN}" in flat and f"CI of agent=a: {TWO_RUNS}" in flat
    assert max(len(line) for line in out.splitlines()) <= 80
    groups = json.loads(_invoke("summarize", str(csv), "--value", "f1", "--group", "agent",
                                "--json")[1])["groups"]
    assert [(g["n"], g["mean"]["interval"], g["mean"]["interval_note"],
             g["cvar"]["interval"]) for g in groups] == [(1, None, ONE_RUN, None),
                                                       (2, None, TWO_RUNS, None)]


def test_run_summary_prints_no_interval_and_why() -> None:
    console = Console(width=80, record=True)
    cells = [RunCell("rule", "L2", summarize_cell([0.82, 0.857], seed=0), 0),
             RunCell("llm", "L2", summarize_cell([0.7, 0.8, 0.9], seed=0), 1)]
    print_run_summary(console, ("ground_truth", "f1"), cells)
    out = console.export_text()
    flat = _flat(out)
    assert "rule L2 2 0.839 no interval 0.820 0" in flat  # it read [0.820, 0.857]
    assert "llm L2 3 0.800 [0.700, 0.900] 0.700 1" in flat  # from 3 runs: as before
    assert f"95% CI of rule at L2: {TWO_RUNS}" in flat
