"""`agm stats compare` takes margins and thresholds on each scorer's own range (results/scales.py).

The shape judge scores 0-100 (ComtradeBench declares it); `--margin 0.1` there is 10 points,
printed as such, and the statistics run on the fraction of the range.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from agentmetrology.cli.stats_cmd import stats_app
from agentmetrology.results import Scale, TableError, parse_range, scale_of
from agentmetrology.stats import compare_paired
from agentmetrology.stats.equivalence import SIGN_FLIP_MINIMUM

JUDGE_A = [60.0, 70.0, 80.0, 65.0, 75.0, 85.0]
JUDGE_B = [64.0, 71.0, 86.0, 66.0, 79.0, 88.0]


def _csv(tmp_path: Path) -> Path:
    lines = ["agent,task,shape_judge.score,ground_truth_f1.score,cost"]
    for g, vals in (("A", JUDGE_A), ("B", JUDGE_B)):
        lines += [f"{g},t{i},{v},{v / 100},{v / 10}" for i, v in enumerate(vals)]
    path = tmp_path / "runs.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _compare(path: Path, *more: str) -> tuple[int, str]:
    r = CliRunner().invoke(stats_app, ["compare", str(path), "--group", "agent", "--a", "A",
                                       "--b", "B", "--pair-by", "task", *more])
    return r.exit_code, r.output


def test_the_judge_is_compared_on_the_fraction_of_its_range(tmp_path: Path) -> None:
    code, out = _compare(_csv(tmp_path), "--value", "shape_judge.score", "--json")
    assert code == 0, out
    doc = json.loads(out)
    scale = doc["scale"]
    assert scale["range"] == [0.0, 100.0] and scale["source"] == "declared by scorer shape_judge"
    assert scale["normalised"] and scale["margin_units"] == pytest.approx(10.0)
    assert scale["tau_units"] == pytest.approx(90.0)
    want = compare_paired(np.array(JUDGE_A) / 100, np.array(JUDGE_B) / 100, margin=0.1,
                          tau=0.9, seed=0, minimum=SIGN_FLIP_MINIMUM).to_dict()
    assert doc["result"] == want  # the same numbers as the 0-1 column
    assert doc["result"]["equivalence"]["label"] == "equivalent"  # a 3.2-point gap, margin 10


def test_the_table_says_the_margin_in_points(tmp_path: Path) -> None:
    code, out = _compare(_csv(tmp_path), "--value", "shape_judge.score")
    assert code == 0, out
    flat = " ".join(out.split())
    assert "margin 10 points (0.1 of range 0-100)" in flat
    assert "tau 90 points (0.9 of range)" in flat


def test_a_margin_beyond_the_range_is_refused_with_the_fix(tmp_path: Path) -> None:
    code, out = _compare(_csv(tmp_path), "--value", "shape_judge.score", "--margin", "5")
    assert code == 2 and "give --margin 0.05" in out


def test_different_ranges_in_one_family_are_normalised_with_a_notice(tmp_path: Path) -> None:
    code, out = _compare(_csv(tmp_path), "--value", "shape_judge.score,ground_truth_f1.score",
                         "--json")
    assert code == 0, out
    doc = json.loads(out)
    judge, f1 = doc["comparisons"]
    assert judge["result"]["difference"] == f1["result"]["difference"]
    assert "different ranges" in doc["scales"] and "0-100" in doc["scales"]


def test_an_undeclared_column_keeps_its_units_and_says_so(tmp_path: Path) -> None:
    code, out = _compare(_csv(tmp_path), "--value", "cost", "--margin", "0.5", "--json")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["scale"]["range"] is None and "own units" in doc["scale"]["text"]
    assert doc["result"]["difference"]["value"] == pytest.approx(np.mean(JUDGE_B) / 10
                                                                 - np.mean(JUDGE_A) / 10)
    code, out = _compare(_csv(tmp_path), "--value", "cost", "--range", "0,10", "--json")
    assert code == 0, out
    assert json.loads(out)["scale"]["source"] == "given with --range"


def test_ranges_that_contradict_or_are_exceeded_are_refused(tmp_path: Path) -> None:
    code, out = _compare(_csv(tmp_path), "--value", "shape_judge.score", "--range", "0,1")
    assert code == 2 and "contradicts the range of shape_judge.score" in out
    code, out = _compare(_csv(tmp_path), "--value", "cost", "--range", "0,5")
    assert code == 2 and "outside its range 0-5" in out


@pytest.mark.parametrize("bad", ["1", "a,b", "5,1", "0,inf", "0,1,2"])
def test_a_malformed_range_is_a_user_error(bad: str) -> None:
    with pytest.raises(ValueError, match="LOW,HIGH"):
        parse_range(bad)
    assert parse_range("0,100") == (0.0, 100.0) and parse_range(None) is None


def test_scale_of_reads_the_declaration() -> None:
    assert scale_of("judge.total", [50.0], None, 0.1) == Scale(0.0, 100.0,
                                                               "declared by scorer shape_judge")
    assert scale_of("ground_truth_f1.score", [0.5], None, 0.1).unit
    with pytest.raises(TableError):
        scale_of("shape_judge.score", [150.0], None, 0.1)


def _summarize(path: Path, *more: str) -> tuple[int, str]:
    r = CliRunner().invoke(stats_app, ["summarize", str(path), "--group", "agent", *more])
    return r.exit_code, r.output


def test_summarize_takes_tau_as_a_fraction_of_the_judges_range(tmp_path: Path) -> None:
    code, out = _summarize(_csv(tmp_path), "--value", "shape_judge.score", "--tau", "0.8",
                           "--json")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["scale"]["tau_units"] == pytest.approx(80.0)
    rel = {g["group"]["agent"]: g["reliability"]["value"] for g in doc["groups"]}
    # A: 80 and 85 of six reach 80 points; B: 86 and 88 (a 0.8-point threshold: all six)
    assert rel == {"A": pytest.approx(2 / 6), "B": pytest.approx(2 / 6)}
    gt = json.loads(_summarize(_csv(tmp_path), "--value", "ground_truth_f1.score", "--tau",
                               "0.8", "--json")[1])
    assert {g["group"]["agent"]: g["reliability"]["value"] for g in gt["groups"]} == rel
    assert {g["group"]["agent"]: g["mean"]["value"] for g in doc["groups"]} == {
        "A": pytest.approx(72.5), "B": pytest.approx(75.666666, abs=1e-5)}  # still in points


def test_summarize_prints_which_scale_tau_is_on(tmp_path: Path) -> None:
    code, out = _summarize(_csv(tmp_path), "--value", "shape_judge.score")
    assert code == 0, out
    assert ("range 0-100 (declared by scorer shape_judge); tau 0.9 of the range = 90 points"
            in " ".join(out.split()))
    code, out = _summarize(_csv(tmp_path), "--value", "cost")
    assert "tau 0.9 in the column's own units" in " ".join(out.split())
    code, out = _summarize(_csv(tmp_path), "--value", "cost", "--range", "0,10", "--json")
    assert json.loads(out)["scale"]["tau_units"] == pytest.approx(9.0)


def test_one_pair_gets_no_equivalence_label_and_says_what_it_lacks(tmp_path: Path) -> None:
    # Before: `different` beside a sign-flip p of 1.0000, from one pair.
    path = tmp_path / "one.csv"
    path.write_text("agent,task,v\nA,t,1\nB,t,0\n")
    code, out = _compare(path, "--value", "v", "--json")
    assert code == 0, out
    eq = json.loads(out)["result"]["equivalence"]
    assert eq["label"] == "insufficient evidence" and eq["n"] == 1
    code, out = _compare(path, "--value", "v")
    text = " ".join(out.split())
    assert "│ units │ 1 pair │" in text
    assert "insufficient evidence (n = 1 pair, needs 6)" in text
