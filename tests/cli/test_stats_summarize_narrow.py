"""`agm stats summarize` never cuts a number or a name, even where no table fits.

Groups named by two long identifiers left no room at 80 columns once every droppable column
(n, CI, CVaR, ...) was gone; rich then folded the rest: the mean 0.250 printed as `0.2` over
`50`, and `another-quite-long-agent-name-two` as `...-name-t` over `wo`, with n not shown.
Now each group prints on its own line, every statistic whole and named.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.main import app

AGENTS = ("a-very-long-agent-name-number-one", "another-quite-long-agent-name-two")
TASKS = ("task-with-a-long-identifier-alpha", "task-beta")


def _summarize(tmp_path: Path, columns: int) -> str:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(
        json.dumps({"agent": a, "task": t, "seed": s, "score": 0.1 * s + 0.05 * i}) + "\n"
        for i, a in enumerate(AGENTS) for t in TASKS for s in range(5)))
    r = CliRunner().invoke(app, ["stats", "summarize", str(rows), "--value", "score",
                                 "--group", "agent,task"], env={"COLUMNS": str(columns)})
    assert r.exit_code == 0, r.output
    assert max(len(line) for line in r.output.splitlines()) <= columns
    return r.output


def test_groups_too_wide_for_a_table_print_one_line_each(tmp_path: Path) -> None:
    said = " ".join(_summarize(tmp_path, 80).split())
    assert "the table does not fit width 80 with its names and numbers whole" in said
    assert ("agent=another-quite-long-agent-name-two, task=task-with-a-long-identifier-alpha: "
            "rank mean 1, rank worst 1, n 5, mean 0.250, CI [0.130, 0.370], worst 0.050, "
            "CVaR@0.2 0.050, Rel@0.9 0.000, gap 0.200") in said
    assert "not shown at width" not in said


def test_a_wide_terminal_keeps_the_table(tmp_path: Path) -> None:
    out = _summarize(tmp_path, 160)
    assert "does not fit" not in out
    assert any("another-quite-long-agent-name-two" in line and "0.250" in line
               and "[0.130, 0.370]" in line for line in out.splitlines())
