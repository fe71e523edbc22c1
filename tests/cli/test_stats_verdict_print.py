"""`agm stats compare` never prints numbers its own label contradicts.

An outside checker reads the printed table: `equivalent` must come with a printed 90% interval
inside [-m, m], `different` with a printed 95% interval that excludes 0, and `inconclusive`
with neither. Three decimals can move an interval end across the margin: -0.10008 printed
as -0.100 beside margin 0.1 reads "inside" next to `inconclusive`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from agentmetrology import stats
from agentmetrology.cli.stats_cmd import stats_app
from agentmetrology.report.terminal.stats_format import fmt_ci, fmt_within
from support.results_rows import row, write_rows

runner = CliRunner()


def _compare(path: Path, *extra: str) -> str:
    result = runner.invoke(stats_app, ["compare", str(path), "--value", "ground_truth.f1",
                                       "--group", "agent", "--a", "rule", "--b", "llm",
                                       "--pair-by", "task,seed", *extra],
                           env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.stderr
    return " ".join(result.stdout.replace("│", " ").split())


def test_an_interval_end_just_beyond_the_margin_prints_beyond_it(tmp_path: Path) -> None:
    # 6 pairs; the 90% interval is [-0.10008333333333343, 0.0016666666666666867]: its lower
    # end lies beyond -0.1, so the label is not `equivalent`. It printed as [-0.100, 0.002].
    a = [0.49, 0.78, 0.88, 0.7, 0.49, 0.65]
    b = [0.53, 0.69, 0.75, 0.59, 0.55, 0.57]
    rows = [row("rule", f"t{i}", 0, x) for i, x in enumerate(a)]
    rows += [row("llm", f"t{i}", 0, y) for i, y in enumerate(b)]
    text = _compare(write_rows(tmp_path / "edge.jsonl", rows))
    assert ("equivalence inconclusive (margin 0.1; 90% CI [-0.1001, 0.002], "
            "95% CI [-0.107, 0.007])") in text


def test_fmt_within_keeps_each_end_on_its_side_of_the_margin() -> None:
    assert fmt_within(-0.10008333333333343, 0.1) == "-0.1001"
    assert fmt_within(0.1000000002, 0.1) == "0.1000000002"
    assert fmt_within(0.10000000000000003, 0.1) == "0.100"  # 0.4 - 0.3: inside (rounding)
    assert fmt_within(0.0996, 0.1) == "0.100"  # inside, and printed inside
    assert fmt_within(0.12342, 0.1234) == "0.12342"
    assert fmt_within(0.0999, 0.0998) == "0.100"  # 0.100 reads outside too: enough
    assert fmt_within(0.5, 0.1) == "0.500"


def test_printed_labels_agree_with_printed_intervals_on_random_tables() -> None:
    # A seeded sweep over the table's own formatting: label and printed interval never disagree.
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(400):
        n = int(rng.integers(6, 13))
        a = np.round(rng.random(n), 2)
        b = np.clip(np.round(a + rng.normal(rng.uniform(-0.15, 0.15), 0.1, n), 2), 0, 1)
        m = float(rng.choice([0.05, 0.1]))
        eq = stats.equivalence(a, b, margin=m, resamples=500, minimum=6)
        assert eq.interval90 is not None and eq.interval is not None
        lo90, hi90 = (float(fmt_within(v, m)) for v in eq.interval90)
        inside = -m <= lo90 and hi90 <= m
        lo95, hi95 = (float(v) for v in fmt_ci(eq.interval).strip("[]").split(", "))
        excludes = lo95 > 0 or hi95 < 0
        assert (eq.label == "equivalent") == inside
        assert eq.label != "different" or excludes
        assert eq.label != "inconclusive" or not excludes
        seen.add(eq.label)
    assert seen == {"equivalent", "different", "inconclusive"}



def _range_rows(tmp_path: Path) -> Path:
    # On 1-10, tau 0.9 is 9.1 points: runs of exactly 9.1 pass.
    rows = [row("rule", f"t{i}", 0, v) for i, v in enumerate([5.0, 5.0, 9.1, 10.0])]
    rows += [row("llm", f"t{i}", 0, v) for i, v in enumerate([9.1, 9.1, 9.1, 10.0])]
    return write_rows(tmp_path / "range.jsonl", rows)


def test_a_run_exactly_at_tau_in_points_passes(tmp_path: Path) -> None:
    path = _range_rows(tmp_path)
    result = runner.invoke(stats_app, ["summarize", str(path), "--value", "ground_truth.f1",
                                       "--group", "agent", "--range", "1,10", "--json"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    rel = {g["group"]["agent"]: g["reliability"]["value"] for g in doc["groups"]}
    assert doc["scale"]["text"].endswith("tau 0.9 of the range = 9.1 points")
    assert rel == {"llm": 1.0, "rule": 0.5}  # were 0.25 and 0.25
    text = _compare(path, "--range", "1,10", "--rerun-of-a", "rule")
    assert "2 fail->pass, 0 pass->fail of 4" in text  # was 0 and 0
    assert "excess flip rate 0.500 95% CI [0.000, 1.000] (conditions 0.500, reruns 0.000" in text


def test_same_seed_gives_byte_identical_json_across_processes(tmp_path: Path) -> None:
    # Each subcommand twice, in fresh interpreters with different hash seeds (set and dict
    # order of labels must not reach the output); this worktree's code, not the venv's agm.
    import os
    import subprocess
    import sys

    import agentmetrology

    rows = [row(agent, f"t{t}", s, round((t * 7 + s * 3 + len(agent)) % 10 / 10, 2))
            for agent in ("rule", "llm", "again") for t in range(4) for s in range(3)]
    path = str(write_rows(tmp_path / "runs.jsonl", rows))
    commands = [["summarize", path, "--value", "ground_truth.f1", "--group", "agent,task"],
                ["compare", path, "--value", "ground_truth.f1", "--group", "agent", "--a",
                 "rule", "--b", "llm,again", "--pair-by", "task,seed", "--cluster", "task",
                 "--rerun-of-a", "again", "--factor", "seed"]]
    src = str(Path(agentmetrology.__file__).parents[1])
    for args in commands:
        outs = set()
        for hash_seed in ("1", "2"):
            env = {**os.environ, "PYTHONPATH": src, "PYTHONHASHSEED": hash_seed}
            done = subprocess.run([sys.executable, "-m", "agentmetrology.cli.main", "stats",
                                   *args, "--json"], capture_output=True, env=env, check=True)
            outs.add(done.stdout)
        assert len(outs) == 1, args
        env = {**os.environ, "PYTHONPATH": src}
        other = subprocess.run([sys.executable, "-m", "agentmetrology.cli.main", "stats",
                                *args, "--json", "--analysis-seed", "1"], capture_output=True,
                               env=env, check=True).stdout
        assert other != outs.pop(), args  # the seed does reach the draws
