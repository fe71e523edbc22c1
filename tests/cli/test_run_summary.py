"""`agm run --task all --seeds 0-9` ends with a per agent x level summary (issue 39 item 5),
run as a user runs it: a real `agm` process at COLUMNS=80. The numbers are the statistics
module's (seeded bootstrap), recomputed here from the run's own --json rows."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from agentmetrology.stats.table import summarize_cell
from support.agm_runs import AGM
from support.small_campaigns import RESEARCHOPS_GRID as GRID


def _agm(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1"}
    return subprocess.run([*AGM, *args], capture_output=True, text=True, env=env, timeout=300,
                          check=False)


def test_run_ends_with_the_outcome_summary_of_the_statistics_module() -> None:
    args = ("run", "comtrade", "--task", "all", "--seeds", "0-9")
    table = _agm(*args)
    rows = [json.loads(line) for line in _agm(*args, "--json").stdout.splitlines()]
    assert table.returncode == 0, table.stderr
    f1 = [r["ground_truth"]["f1"] for r in rows]
    assert len(f1) == 110  # 11 tasks x 10 seeds, none a measurement failure
    s = summarize_cell(f1, seed=0)
    lines = table.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "summary: ground_truth.f1" in line)
    row = next(line for line in lines[start:] if line.startswith("│ rule"))
    cells = [c.strip() for c in row.strip("│").split("│")]
    lo, hi = s.mean.interval
    assert cells == ["rule", "L2", "110", f"{s.mean.value:.3f}", f"[{lo:.3f}, {hi:.3f}]",
                     f"{s.worst.value:.3f}", "0"]
    assert cells[3] == "0.934" and cells[5] == "0.500"  # pinned: the rule baseline is deterministic
    assert "excluded: measurement failures, never" in table.stdout
    assert max(len(line) for line in lines) <= 80


def test_a_single_episode_has_no_summary() -> None:
    proc = _agm("run", "comtrade", "--task", "T1_single_page", "--seeds", "0")
    assert proc.returncode == 0, proc.stderr
    assert "summary:" not in proc.stdout




def test_diagnose_explains_the_terms_its_table_prints(tmp_path: Path) -> None:
    (tmp_path / "grid.toml").write_text(GRID)
    store = str(tmp_path / "st")
    assert _agm("campaign", "run", str(tmp_path / "grid.toml"), "--store", store).returncode == 0
    proc = _agm("diagnose", store, "--out", str(tmp_path / "dg"))
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert "VRG: S(original) - S(mutated), positive when the mutation lowers the score" in text
    assert "MSR: Pr[S(mutated) >= tau] (--tau)" in text


def test_stats_summarize_explains_the_terms_it_shows(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(_agm("run", "comtrade", "--task", "all", "--seeds", "0-1", "--json").stdout)
    proc = _agm("stats", "summarize", str(rows), "--value", "ground_truth.f1", "--group", "task")
    assert proc.returncode == 0, proc.stderr
    # At 80 columns Rel@0.9 and gap are left out: only CVaR is shown, so only it is explained.
    assert "CVaR@0.2: mean of the worst alpha fraction of runs" in proc.stdout
    assert "Rel@0.9: " not in proc.stdout
