"""A p-value just below 0.05 never prints as 0.0500 beside "rejects at 0.05".

21 pairs (Monte-Carlo sign-flip test, 2000 sign vectors) give p = 100/2001 = 0.049975: it
printed `Holm p 0.0500 (family of 1; rejects at 0.05)`, a verdict its own number contradicted.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.report.terminal.stats_format import fmt_p

B = [-0.57, 0.73, 0.7, 1.21, 1.09, 1.64, 1.45, 1.0, 0.34, 0.36, 0.84, 0.47, 1.4, 1.17, 1.21,
     -0.77, 0.17, 1.44, 0.82, 0.81, 1.24]


def test_a_p_below_alpha_prints_below_it(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"agent": g, "seed": i, "score": v}) + "\n"
                            for i, b in enumerate(B) for g, v in (("A", 0.5), ("B", b))))
    args = ["stats", "compare", str(rows), "--value", "score", "--group", "agent", "--a", "A",
            "--b", "B", "--pair-by", "seed", "--draws", "2000"]
    r = CliRunner().invoke(app, [*args, "--json"])
    assert r.exit_code == 0, r.output
    c = json.loads(r.output)["comparisons"][0]
    assert c["p_holm"] == 100 / 2001 and c["holm_rejects"] is True
    r = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    assert "Holm p            │ 0.04998 (family of 1; rejects at 0.05)" in r.output


def test_fmt_p_keeps_the_side_of_alpha() -> None:
    assert [fmt_p(p) for p in (0.049975, 0.05, 0.0500001, 0.04, 0.0499999999)] == [
        "0.04997", "0.0500", "0.0500", "0.0400", "0.0499999999"]
