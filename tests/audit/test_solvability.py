"""The solvability stage: answers one model response cannot hold, and the F1 cap they imply.

The seed paper finds T7 (750 rows) unsolvable at L2: about 54 output tokens a row caps F1 near
0.26 at 8k and 0.46 at 16k output tokens. Ours: 0.278 and 0.495 (rows re-emitted inside the
call's argument string carry escapes, 65 tokens a row by our estimate; docs/audit.md).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from agentmetrology.audit.solvability import (
    BYTES_PER_TOKEN,
    f1_cap,
    rows_that_fit,
    solvability,
    solvability_lines,
)
from agentmetrology.envs.comtrade.demanded import demanded_call
from agentmetrology.envs.comtrade.generator import generate_rows
from agentmetrology.envs.comtrade.scoring.ground_truth import ground_truth_f1
from agentmetrology.envs.comtrade.scoring.submission import submission_from_mapping
from agentmetrology.envs.registry import get_env
from agentmetrology.records.environment import DemandedCall
from support.agm_runs import agm

COMTRADE = get_env("comtrade")


@pytest.fixture(scope="module")
def stage() -> dict:
    return solvability(COMTRADE, (8192, 16384), 3)


def _cap(stage: dict, task: str, level: str, budget: int) -> dict:
    (t,) = [t for t in stage["tasks"] if t["task"] == task]
    return t["levels"][level]["caps"][str(budget)]


def test_t7_at_l2_is_capped_as_the_paper_finds(stage: dict) -> None:
    assert _cap(stage, "T7_totals_trap", "L2", 8192) == {"rows_fit": 121, "f1_cap": 0.2778,
                                                         "fair": False}
    assert _cap(stage, "T7_totals_trap", "L2", 16384) == {"rows_fit": 247, "f1_cap": 0.4955,
                                                          "fair": False}
    (t7,) = [t for t in stage["tasks"] if t["task"] == "T7_totals_trap"]
    assert t7["rows"] == 750 and t7["tokens_per_row"] == pytest.approx(65.25, abs=0.3)


def test_the_harness_levels_are_never_capped_and_small_tasks_are_fair(stage: dict) -> None:
    (t7,) = [t for t in stage["tasks"] if t["task"] == "T7_totals_trap"]
    assert t7["levels"]["L0"]["caps"] is None and t7["levels"]["L1"]["caps"] is None
    assert t7["levels"]["L0"]["owner"] == "harness"
    assert _cap(stage, "T3_duplicates", "L2", 8192) == {"rows_fit": 25, "f1_cap": 1.0,
                                                        "fair": True}
    flagged = {(f["task"], f["budget"]) for f in stage["flagged"]}
    assert flagged == {(t, b) for t in ("T1_single_page", "T2_multi_page", "T7_totals_trap")
                       for b in (8192, 16384)}
    assert stage["status"] == "fail"


def test_the_cap_is_the_f1_of_the_rows_that_fit_scored_by_the_real_scorer() -> None:
    # Cut the demanded answer to the rows that fit and score it with ground-truth F1: the
    # cap is exactly what the valid scorer gives that submission.
    call = demanded_call("T7_totals_trap", 0)
    fit = rows_that_fit(call, 8192)
    args = json.loads(call.text)
    kept = "".join(args["data_jsonl"].splitlines(keepends=True)[:fit])
    sub = submission_from_mapping({**args, "data_jsonl": kept})
    assert ground_truth_f1(sub, "T7_totals_trap", 0).score == pytest.approx(f1_cap(750, fit))


def test_the_demanded_call_fits_its_own_size_and_nothing_fits_below_the_overhead() -> None:
    call = demanded_call("T3_duplicates", 0)
    whole = len(call.text.encode()) / BYTES_PER_TOKEN
    assert rows_that_fit(call, int(whole) + 1) == 25
    assert rows_that_fit(call, int(whole) - 30) < 25
    assert rows_that_fit(call, 10) == 0  # the metadata alone does not fit
    assert f1_cap(0, 0) == 1.0 and f1_cap(10, 20) == 1.0 and f1_cap(10, 0) == 0.0


def test_the_byte_constant_is_the_papers_54_tokens_for_our_mean_row() -> None:
    # 166 bytes: the mean compact JSON row over every task (seed 0), measured, not assumed.
    sizes = [len(json.dumps(r, separators=(",", ":"))) for t in COMTRADE.tasks
             for r in generate_rows(t, 0)]
    assert round(sum(sizes) / len(sizes)) == 166
    assert BYTES_PER_TOKEN == 166 / 54


def test_without_the_hook_or_a_budget_the_stage_is_not_probed() -> None:
    assert COMTRADE.audit is not None
    bare = replace(COMTRADE, audit=replace(COMTRADE.audit, demanded_call=None))
    assert solvability(bare, (8192,), 1)["status"] == "not probed"
    assert solvability(COMTRADE, (), 1)["status"] == "not probed"
    assert solvability_lines(solvability(bare, (8192,), 1))[0].startswith(
        "solvability: not probed (the environment does not say")


def test_lines_fit_80_columns(stage: dict) -> None:
    lines = solvability_lines(stage)
    assert lines[2] == "  T1_single_page L2 @8192: 121/800 rows fit, F1 cap 0.263"
    assert max(len(x) for x in lines) <= 80


def test_the_row_is_shown_whole_as_emitted() -> None:
    call = DemandedCall('{"a": "x\\ny"}', ("x\\n",))
    assert rows_that_fit(call, 100) == 1


@pytest.mark.parametrize("budget", ["abc", "0", "8192,-1", ""])
def test_a_bad_budget_is_one_line(budget: str, tmp_path: Path) -> None:
    res = agm("audit", "comtrade", "--output-budget", budget, "--out", str(tmp_path / "a"))
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0
    assert "--output-budget takes positive token counts" in res.stderr
