"""A dose plan below the rule's minimum pairs says so; it never reads "not confirmed" or
"nothing binds", and its shape never claims what more seeds could overturn.

n = 4 seeds with a Holm family of 4 (2 slacks x 2 scorers): an exact sign-flip p is at least
2/2^4, times 4 is 0.5, so no data can confirm (the rule needs 8). Before, the dose table read
"not confirmed" on every row, the shape sentence "at slack 4 nothing binds", and a plan forced
at its lowest slack was "not an inverted U" at n = 4 that could be one at n = 20. The sentence
also listed all three pairs of targets as equal on every seed beside "2 distinct vectors" (the
pairs equal in either arm, not in both).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.experiment.dose import shape
from agentmetrology.report.experiment_dose import shape_sentence

DOSE = Path(__file__).parents[2] / "examples" / "experiment_b2_dose.toml"


def test_a_dose_plan_below_its_minimum_withholds_its_verdicts(tmp_path: Path) -> None:
    text = (DOSE.read_text().replace("slacks = [0, 1, 2, 4]", "slacks = [0, 4]")
            .replace("n = 20", "n = 4").replace('name = "b2-quota-dose"', 'name = "dose-4"'))
    plan = tmp_path / "dose.toml"
    plan.write_text(text)
    store, out = str(tmp_path / "s"), tmp_path / "o"
    assert CliRunner().invoke(app, ["experiment", "run", str(plan), "--store", store]
                              ).exit_code == 0
    r = CliRunner().invoke(app, ["experiment", "report", str(plan), "--store", store, "--out",
                                 str(out)], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    said = " ".join(r.output.split())
    assert re.search(r"l1:always-retry 0 \+0\.037 \[-0\.033, 0\.107\] insufficient evidence",
                     said)
    assert said.count("not confirmed") == 1  # only the note: "'not confirmed' would say nothing"
    assert ("insufficient evidence: n = 4 paired seeds, and with a Holm family of 4 the rule "
            "cannot confirm below 8") in said
    assert ("2 distinct per-seed coverage vectors among the targets; l1:always-retry = "
            "l1:quota-aware on every seed)") in said
    # the sentence names n and the n the rule needs, as the rows beside it do (it said only
    # "too few paired seeds to confirm one")
    assert ("at slack 4 whether anything binds is undetermined (no delta confirmed, and n = 4 "
            "paired seeds where the rule needs 8 to confirm one)") in said
    md = (out / "report.md").read_text()
    assert ("| `l1:always-retry` | L1 | 0 | +0.037 [-0.033, 0.107] | 0.500 | 1.000 | "
            "insufficient evidence (n = 4, needs 8) |") in md
    assert ("whether anything binds is undetermined (no delta confirmed, and n = 4 paired "
            "seeds where the rule needs 8 to confirm one)") in " ".join(md.split())


def _row(k: int, verdict: str, sufficient: bool) -> dict[str, Any]:
    return {"target": "t", "level": "L1", "slack": k, "delta": 0.1 / (k + 1),
            "verdict": verdict, "sufficient": sufficient, "pairs": 4, "minimum": 8}


def test_binding_below_the_minimum_is_undetermined() -> None:
    inv = [{"slack": 0, "forced": True}, {"slack": 1, "forced": False},
           {"slack": 4, "forced": False}]
    few = [_row(0, "not confirmed", False), _row(1, "not confirmed", False),
           _row(4, "not confirmed", False)]
    sh = shape(few, inv)
    assert sh["binds"] == [None, None, None]
    assert sh["inverted_u"] is None  # was False: "not an inverted U" from 4 seeds
    # enough seeds: the same verdicts now decide
    enough = [{**r, "sufficient": True} for r in few]
    assert shape(enough, inv)["inverted_u"] is False
    # a confirmed delta binds whatever n; the highest slack binding rules the U out
    assert shape([*few[:2], _row(4, "confirmed", True)], inv)["inverted_u"] is False
    # the middle is unknown but the rest holds: still undetermined, never False
    mixed = [_row(0, "confirmed", True), _row(1, "not confirmed", False),
             _row(4, "not confirmed", True)]
    assert shape(mixed, inv)["inverted_u"] is None


def test_the_undetermined_sentence_names_each_targets_n() -> None:
    rows = [_row(0, "not confirmed", True), {**_row(4, "not confirmed", False), "pairs": 2},
            {**_row(4, "not confirmed", False), "target": "u", "pairs": 3, "minimum": 6}]
    inv = [{"level": "L1", "slack": k, "forced": True, "baseline": None, "arm": None}
           for k in (0, 4)]
    dose = {"rows": rows, "invariance": inv, "shape": {"L1": shape(rows, inv)}}
    said = shape_sentence(dose, "L1", lambda x: f"{x:.3f}")
    assert ("whether anything binds is undetermined (no delta confirmed, and too few paired "
            "seeds to confirm one: `t` n = 2, needs 8; `u` n = 3, needs 6)") in said
