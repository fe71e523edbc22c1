"""`agm stats compare` families: Holm over --value x --b, exact sign test, excess flips, eta²."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.stats_cmd import stats_app
from agentmetrology.stats import eta_squared

A = [0.5, 0.5, 0.5, 0.5, 0.5]
GROUPS = {"A": A, "B1": [1, 1, 1, 1, 0], "B2": [1, 1, 1, 1, 1],
          "A2": [0.5, 0.5, 0.5, 0.5, 1.0]}  # A2: an identical rerun of A (one flip)


def _csv(tmp_path: Path) -> Path:
    lines = ["agent,task,f1,judge"]
    for g, vals in GROUPS.items():
        lines += [f"{g},t{i},{v},{100 * v}" for i, v in enumerate(vals)]
    path = tmp_path / "runs.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _run(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(stats_app, ["compare", *args])
    return r.exit_code, r.output


def test_holm_over_groups_and_the_exact_sign_test(tmp_path: Path) -> None:
    code, out = _run(str(_csv(tmp_path)), "--value", "f1", "--group", "agent", "--a", "A",
                     "--b", "B1,B2", "--pair-by", "task", "--json")
    assert code == 0, out
    doc = json.loads(out)
    b1, b2 = doc["comparisons"]
    # B1 - A: 4 up, 1 down -> exact sign test 0.375; sign-flip 12/32 = 0.375
    assert (b1["sign_test"]["n_up"], b1["sign_test"]["n_down"]) == (4, 1)
    assert b1["sign_test"]["p_value"] == 0.375
    assert b1["result"]["sign_flip"]["p_value"] == 0.375
    # B2 - A: 5 up -> 2/32 for both tests
    assert b2["sign_test"]["p_value"] == 0.0625 == b2["result"]["sign_flip"]["p_value"]
    # Holm over [0.375, 0.0625]: 0.0625 x 2 = 0.125, then max(0.375 x 1, 0.125) = 0.375
    assert (b1["p_holm"], b2["p_holm"]) == (0.375, 0.125)
    assert doc["holm"]["family"] == 2 and doc["result"] == b1["result"]


def test_holm_runs_over_values_too(tmp_path: Path) -> None:
    code, out = _run(str(_csv(tmp_path)), "--value", "f1,judge", "--group", "agent", "--a",
                     "A", "--b", "B1,B2", "--pair-by", "task", "--json")
    assert code == 0, out
    doc = json.loads(out)
    got = {(c["value"], c["b"]): c["p_holm"] for c in doc["comparisons"]}
    # p = [0.375, 0.0625, 0.375, 0.0625]: sorted x [4, 3, 2, 1] = .25 .1875 .75 .375 -> max-acc
    assert got == {("f1", "B1"): 0.75, ("f1", "B2"): 0.25, ("judge", "B1"): 0.75,
                   ("judge", "B2"): 0.25}


def test_excess_flip_rate_against_a_rerun_of_a(tmp_path: Path) -> None:
    code, out = _run(str(_csv(tmp_path)), "--value", "f1", "--group", "agent", "--a", "A",
                     "--b", "B1", "--pair-by", "task", "--rerun-of-a", "A2", "--json")
    assert code == 0, out
    ex = json.loads(out)["comparisons"][0]["excess_flip"]
    # A fails everywhere; B1 passes 4 of 5; the rerun passes 1 of 5: 0.8 - 0.2
    assert (ex["condition_rate"], ex["rerun_rate"]) == (0.8, 0.2)
    assert ex["value"] == pytest.approx(0.6)
    code, out = _run(str(_csv(tmp_path)), "--value", "f1", "--group", "agent", "--a", "A",
                     "--b", "B1", "--pair-by", "task", "--rerun-of-a", "A2")
    assert code == 0 and "excess flip rate" in out and "exact sign test p" in out
    assert "Holm p" in out


def test_eta_squared_with_a_factor_column(tmp_path: Path) -> None:
    vals = {("A", "x"): [0.1, 0.2, 0.3], ("A", "y"): [0.4, 0.4, 0.6],
            ("B", "x"): [0.5, 0.9, 0.7], ("B", "y"): [0.2, 0.1, 0.9]}
    lines = ["agent,task,cond,f1"]
    for (g, c), xs in vals.items():
        lines += [f"{g},t{i},{c},{v}" for i, v in enumerate(xs)]
    path = tmp_path / "f.csv"
    path.write_text("\n".join(lines) + "\n")
    code, out = _run(str(path), "--value", "f1", "--group", "agent", "--a", "A", "--b", "B",
                     "--pair-by", "task,cond", "--factor", "cond", "--json")
    assert code == 0, out
    (v,) = json.loads(out)["variance"]
    table = [[[vals[(g, c)][t] for c in ("x", "y")] for g in ("A", "B")] for t in range(3)]
    assert v["shares"] == eta_squared(table).to_dict()["shares"]
    assert (v["blocks"], v["levels"]) == (3, ["x", "y"])
    code, out = _run(str(path), "--value", "f1", "--group", "agent", "--a", "A", "--b", "B",
                     "--pair-by", "task,cond", "--factor", "agent")
    assert code == 2 and "--factor 'agent' must be one of the --pair-by columns" in out


def test_an_unknown_b_in_a_family_is_one_line_exit_2(tmp_path: Path) -> None:
    r = CliRunner().invoke(stats_app, ["compare", str(_csv(tmp_path)), "--value", "f1",
                                       "--group", "agent", "--a", "A", "--b", "B1,nobody",
                                       "--pair-by", "task"])
    assert r.exit_code == 2
    assert "--b group 'nobody' not found in column 'agent'" in r.output
    assert "Traceback" not in r.output
