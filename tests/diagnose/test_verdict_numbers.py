"""No diagnose verdict contradicts the numbers printed beside it (docs/diagnose.md, "Readings").

Found on the built-in grids: "different: yes" beside a Holm p of n/a (repeat and rubric rows,
read off an unadjusted p), "different: yes" from a bootstrap over one task, "robust" beside
MTR 0.000 (ResearchOpsEnv overfit under constraint), "n = 1 tasks", and groups that pooled
several base conditions or campaigns without saying so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.diagnose.metrics import diagnose_pairs, read_group
from agentmetrology.diagnose.pairs import Pair, Side
from agentmetrology.records.episode import EpisodeKey
from support.stores import record_campaign

KEY = EpisodeKey("c", "t", "task", 0, "clean", "L2", 0)


def _m(**over: Any) -> dict[str, Any]:
    base = {"complete": 18, "tasks": 6, "msr": 0.5, "msr_original": 0.5, "mtr": 1.0,
            "behaviour_changed": 0.0, "vrg": {"value": 0.3, "interval": [0.1, 0.5]},
            "rescored_gap": {"value": 0.0, "interval": [0.0, 0.0]},
            "paired": {"p_values": {"difference": 0.001, "equivalence": 0.001}}}
    return {**base, **over}


@pytest.mark.parametrize(("mutation", "why"), [
    ("repeat", "not tested: the repeat control is a label, outside the Holm family"),
    ("rubric", "not tested: an evaluator change is a label, outside the Holm family"),
])
def test_a_label_is_never_different_or_equivalent_without_the_test(mutation: str,
                                                                   why: str) -> None:
    # the predicates were read off the unadjusted p (0.001): "different: yes | Holm p n/a"
    m = _m()
    read_group(m, mutation, 0.10)
    assert (m["predicates"]["different"], m["predicates"]["equivalent"]) == (None, None)
    assert m["untested"] == {"different": why, "equivalent": why}


def _pairs(mutation: str, gap: float, tasks: int) -> list[Pair]:
    return [Pair(("e", "a", "L2", mutation), f"task{i}", s, 0, "clean",
                 Side(KEY, True, 1.0, 1.0, True, None, "", None, b"x"),
                 Side(KEY, True, 1.0 - gap, 1.0, True, 1.0, "", None, b"x"), campaign="c")
            for i in range(tasks) for s in range(2)]


def test_fewer_than_6_tasks_is_no_test_and_not_in_the_family() -> None:
    groups = diagnose_pairs(_pairs("alias", 0.3, 2) + _pairs("format", 0.3, 6), seed=0)
    few, enough = groups[("e", "a", "L2", "alias")], groups[("e", "a", "L2", "format")]
    # a bootstrap over 2 tasks gave a difference p of 0.001 and "different: yes"
    assert few["predicates"]["different"] is None and "holm" not in few["paired"]
    assert few["untested"]["different"] == ("insufficient: 2 tasks, the test needs 6 (outside "
                                            "the Holm family)")
    assert enough["paired"]["holm"]["family_size"] == 1 and enough["untested"] == {}
    assert enough["predicates"]["different"] is True


@pytest.mark.parametrize(("mtr", "want"), [
    (0.0, "small gap, passes lost"),  # overfit under constraint on ResearchOpsEnv read robust
    (0.89, "small gap, passes lost"),
    (0.9, "robust"),  # at most the margin's share of passes lost
    (None, "robust"),  # no original passes: no pass could be lost
])
def test_robust_never_stands_beside_lost_passes(mtr: float | None, want: str) -> None:
    m = _m(mtr=mtr, paired={"p_values": {"difference": 0.001, "equivalence": 0.01}})
    read_group(m, "constraint", 0.10)
    assert m["reading"] == want and m["predicates"]["loses_passes"] is (
        None if mtr is None else mtr < 0.9)


def test_the_sweep_reads_lost_passes_at_each_threshold() -> None:
    sweep = {"0.5": {"msr": 0.48, "msr_original": 0.76, "mtr": 0.631578947368421},
             "0.8": {"msr": 0.5, "msr_original": 0.5, "mtr": 1.0}}
    m = _m(sweep=sweep, paired={"p_values": {"difference": 0.001, "equivalence": 0.01}})
    read_group(m, "constraint", 0.10)
    assert [r["reading"] for r in m["sweep"].values()] == ["small gap, passes lost", "robust"]


ONE_TASK = """
[campaign]
name = "one-task"
tasks = ["T3_duplicates"]
seeds = "0-1"
levels = ["L2"]
conditions = ["clean", "stress:escalating"]
mutations = ["alias", "repeat"]

[[targets]]
name = "rule"
kind = "rule"
agent = "rule"
"""


def test_one_task_two_bases_reads_as_counted(tmp_path: Path) -> None:
    store = record_campaign(tmp_path, ONE_TASK)
    res = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "out" / "diagnose.json").read_text())
    md = (tmp_path / "out" / "report.md").read_text()
    alias = doc["groups"]["comtrade|rule|L2|alias"]
    assert alias["verdict"]["text"] == "insufficient evidence (n = 1 task, needs 6)"
    assert alias["pooled"] == {"bases": {"clean": 2, "stress:escalating": 2},
                               "campaigns": {"one-task": 4}}
    assert "n = 1 tasks" not in md and "n = 1 tasks" not in res.output
    assert "repeat control (n = 1 task)" in md
    assert ("- `rule` under `alias`: base conditions `clean` (2), `stress:escalating` (2); "
            "campaigns `one-task` (4)") in md
    assert "pooled: 2 of 2 rows pool pairs over several base conditions" in res.output
    assert ("| `rule` | `repeat` | 1 | not tested: the repeat control is a label, outside "
            "the Holm family | n/a |") in md
    assert "| yes | n/a |" not in md  # no "different: yes" beside an absent Holm p
    assert "insufficient (n = 1 task)" in md  # no interval label from a 1-task bootstrap
    assert "no group was tested, so none was Holm-adjusted" in md
    # one task on each side: the excess-flip interval collapsed to [1.000, 1.000]
    flips = alias["excess_flip_rate"]
    assert flips["interval"] is None and flips["interval_note"] == (
        "no interval: 1 cluster of condition units, 1 cluster of rerun units; a bootstrap over "
        "1 cluster has 1 distinct resample, an interval needs at least 3 clusters on each side")
    assert "[1.000, 1.000]" not in md
