"""An experiment of 2 seeds: no bootstrap interval anywhere, and the report says why.

A bootstrap over 2 pairs (or values) has 3 distinct resamples (stats.bootstrap): the delta's
"95% CI" and a curve's band were the two values themselves. Now experiment.json has
`interval: null` with `interval_note`, report.md prints `(no interval)` / `no interval` and
says why under each table, the curve's figure draws no band, and the rule reads "not
confirmed" (its interval does not exist), never a crash on the missing interval.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from support.experiment_runs import run_and_report

TWO_PAIRS = ("no interval: 2 pairs; a bootstrap over 2 pairs has 3 distinct resamples, an "
             "interval needs at least 3 pairs")
TWO_VALUES = ("no interval: 2 values; a bootstrap over 2 values has 3 distinct resamples, an "
              "interval needs at least 3 values")
CURVE = """[experiment]
name = "curve2"
hypothesis = "outcomes degrade with dose"
kind = "curve"
targets = ["rule"]
n = 2
"""
DOSE = """[experiment]
name = "dose2"
hypothesis = "the squeeze's penalty shrinks with slack"
kind = "dose"
task = "T9_clean_ab"
arms = ["stress:b2:escalating", "stress:b2:constant"]
slacks = [0, 4]
targets = ["l1:always-skip", "l1:always-retry"]
levels = ["L1"]
metrics = { L1 = "coverage" }
scorer = "shape_judge"
n = 2
"""


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def curve(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    root = tmp_path_factory.mktemp("curve2")
    (root / "curve.toml").write_text(CURVE)
    return run_and_report(root / "curve.toml", root), root / "o"


def test_two_pairs_have_no_delta_interval_and_the_report_says_why(
        curve: tuple[dict[str, Any], Path]) -> None:
    doc, out = curve
    for c in doc["cells"]:
        assert c["pairs"] == 2 and c["verdict"] == "not confirmed"
        for est in (c["delta"], c["cliffs_delta"]):
            assert est["interval"] is None and est["interval_note"] == TWO_PAIRS
        assert c["rule"]["interval"] is None
    md = (out / "report.md").read_text()
    rule_l1 = next(ln for ln in md.splitlines() if ln.startswith("| `rule` | L1 | `ground"))
    assert "| 0.300 (no interval) | 1.000 (no interval) |" in rule_l1  # it was [0.000, 0.600]
    assert f"reported beside the rule. {TWO_PAIRS[:1].upper()}{TWO_PAIRS[1:]}." in _flat(md)


def test_a_dose_of_two_seeds_has_no_band(curve: tuple[dict[str, Any], Path]) -> None:
    doc, out = curve
    for c in doc["cells"]:
        for pt in c["curve"]["points"]:
            assert pt["n"] == 2 and pt["band"]["interval"] is None
            assert pt["band"]["interval_note"] == TWO_VALUES
    md = (out / "report.md").read_text()
    assert "| 1.000 | 2 | 0.700 | no interval | 0.600, 0.800 |" in md  # was [0.600, 0.800]
    # under each curve's table, once
    assert md.count(f"{TWO_VALUES[:1].upper()}{TWO_VALUES[1:]}.") == len(doc["cells"])
    html = (out / "report.html").read_text()
    assert "<polygon" not in html and "<polyline" in html  # the means, with no band
    assert "The band leaves out a dose without an interval" in html


def test_the_dose_table_says_no_interval_on_the_terminal_and_in_the_report(
        tmp_path: Path) -> None:
    (tmp_path / "dose.toml").write_text(DOSE)
    doc = run_and_report(tmp_path / "dose.toml", tmp_path)
    rows = doc["dose"]["rows"]
    assert [(r["interval"], r["interval_note"]) for r in rows] == [(None, TWO_PAIRS)] * 4
    md = _flat((tmp_path / "o" / "report.md").read_text())
    assert "(no interval) |" in md and f"{TWO_PAIRS[:1].upper()}{TWO_PAIRS[1:]}." in md
    shown = CliRunner().invoke(app, ["experiment", "report", str(tmp_path / "dose.toml"),
                                     "--store", str(tmp_path / "s"), "--out",
                                     str(tmp_path / "again")], env={"COLUMNS": "80"})
    assert shown.exit_code == 0, shown.output
    assert "(no interval)" in shown.output and TWO_PAIRS in _flat(shown.output)
