"""`agm run --task all --seeds 0-9` ends with a per agent x level summary (issue 39 item 5),
run as a user runs it: a real `agm` process at COLUMNS=80. The numbers are the statistics
module's (seeded bootstrap), recomputed here from the run's own --json rows."""

from __future__ import annotations

import json
import os
import subprocess

from agentmetrology.stats.table import summarize_cell
from support.agm_runs import AGM


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
