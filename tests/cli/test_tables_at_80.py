"""Tables read at 80 columns (issue 39 item 4), run as a user runs them: a real `agm` process
with COLUMNS=80. Identifiers (scorer, arm, task names) are never cut mid-word; columns that
must go are named in a caption line."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from support.agm_runs import AGM
from support.tty import run_in_tty


def agm_at(columns: int, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `agm ARGS` in a fresh process on a terminal `columns` wide."""
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1"}
    return subprocess.run([*AGM, *args], capture_output=True, text=True, env=env,
                          timeout=300, check=False)


def test_envs_keeps_every_scorer_name_whole_at_80_columns() -> None:
    proc = agm_at(80, "envs")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    for name in ("ground_truth_f1", "shape_judge", "task_quality", "composite_verifier"):
        assert any(name in line for line in lines), f"{name} cut or missing:\n{proc.stdout}"
    assert "not shown at this width: description (see --json)" in proc.stdout


RESEARCHOPS = """
[campaign]
name = "ro-small"
environment = "researchops"
tasks = "all"
seeds = "0"
levels = ["L2"]

[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"

[[targets]]
name = "shortcut"
kind = "scripted"
agent = "scripted:shortcut"
"""


@pytest.fixture(scope="module")
def researchops_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ResearchOps store: 25 tasks x 2 scripted targets x 1 seed (two scorers)."""
    here = tmp_path_factory.mktemp("ro")
    (here / "ro.toml").write_text(RESEARCHOPS)
    proc = agm_at(80, "campaign", "run", str(here / "ro.toml"), "--store", str(here / "st"))
    assert proc.returncode == 0, proc.stderr
    return here / "st"


def test_campaign_status_keeps_the_ground_truth_and_drops_the_verifier(
        researchops_store: Path) -> None:
    proc = agm_at(80, "campaign", "status", "--store", str(researchops_store))
    assert proc.returncode == 0, proc.stderr
    header = next(line for line in proc.stdout.splitlines() if line.startswith(" target"))
    assert "task_quality" in header and "composite_verifier" not in header
    caption = proc.stdout[proc.stdout.index("not shown at this width"):]
    assert "composite_verifier" in caption
    assert "0.000" in proc.stdout  # shortcut's ground truth (its verifier says 0.147)


def test_regrade_keeps_scorer_names_whole_at_80_columns(
        researchops_store: Path, tmp_path: Path) -> None:
    proc = agm_at(80, "archive", "regrade", str(researchops_store), "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("│")]
    assert [r.split("│")[1].strip() for r in rows] == ["composite_verifier", "task_quality"]
    assert max(len(line) for line in proc.stdout.splitlines()) <= 80
    assert "not shown at this width: score changed, status changed" in proc.stdout


def test_experiment_arms_are_told_apart_at_80_columns(tmp_path: Path) -> None:
    plan = Path(__file__).parents[2] / "examples" / "experiment_squeeze.toml"
    store = str(tmp_path / "st")
    assert agm_at(80, "experiment", "run", str(plan), "--store", store).returncode == 0
    proc = agm_at(80, "experiment", "status", str(plan), "--store", store)
    assert proc.returncode == 0, proc.stderr
    for slack in (0, 1, 2, 4):
        assert f"stress:squeeze:slack={slack}" in proc.stdout
    assert "…" not in proc.stdout
    assert max(len(line) for line in proc.stdout.splitlines()) <= 80
    assert "not shown at this width: recorded" in proc.stdout


def test_stats_summarize_ci_stays_on_one_line_and_task_ids_whole(tmp_path: Path) -> None:
    # 3 seeds: over 2 runs there is no interval (it printed the two runs, [1.000, 1.000])
    run = agm_at(80, "run", "comtrade", "--task", "all", "--seeds", "0-2", "--json")
    assert run.returncode == 0, run.stderr
    rows = tmp_path / "rows.jsonl"
    rows.write_text(run.stdout)
    for columns in (100, 80):
        proc = agm_at(columns, "stats", "summarize", str(rows), "--value", "ground_truth.f1",
                      "--group", "task")
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.splitlines()
        assert max(len(line) for line in lines) <= columns
        budget = next(line for line in lines if "T10_constrained_budget" in line)
        assert "[1.000, 1.000]" in budget  # the interval whole, on the task's line
        dropped = "not shown at width 80: Rel@0.9, gap" in proc.stdout.replace("\n", " ")
        assert dropped == (columns == 80), proc.stdout


def test_campaign_progress_bar_keeps_its_words_whole_at_80_columns(tmp_path: Path) -> None:
    (tmp_path / "ro.toml").write_text(RESEARCHOPS)
    env = {**os.environ, "COLUMNS": "80"}
    code, out = run_in_tty([*AGM, "campaign", "run", str(tmp_path / "ro.toml"), "--store",
                            str(tmp_path / "st")], env=env)
    assert code == 0, out
    lines = re.split(r"[\r\n]+", re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", out))
    bars = [line for line in lines if "━" in line and line.startswith("campaign ")]
    assert bars, out
    for bar in bars:  # was `c… 12… done 1216`: every column cut
        assert "…" not in bar and len(bar) <= 80, bar
        assert re.search(r" \d+/50 failed \d+ agent / \d+ infra · cost 0\.000000 \d:\d\d:\d\d$",
                         bar), bar
