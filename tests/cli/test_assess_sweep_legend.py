"""`agm assess --sweep`'s table says what its abbreviated columns count (k, kpas, raw, gate)."""

from __future__ import annotations

from typer.testing import CliRunner

from agentmetrology.cli.main import app


def test_the_sweep_table_ends_with_its_legend_within_80_columns() -> None:
    res = CliRunner().invoke(app, ["assess", "clarification", "--agent", "scripted:clarify",
                                   "--seeds", "0-9", "--mask", "log", "--sweep", "0"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[2].split() == ["mechanism", "prop", "k", "kpas", "raw", "raw", "envelope",
                                "gate", "gate", "envelope"]
    legend = " ".join(lines[15:])
    assert legend == ("k: trajectories masked; kpas: of them, passing originally; raw, gate: "
                      "established passes under the raw checker (a masked copy fails) and the "
                      "completeness-aware gate (a masked copy is UNKNOWN), each with its "
                      "envelope [pass/N, (pass + unknown)/N]")
    assert max(len(line) for line in lines) <= 80
