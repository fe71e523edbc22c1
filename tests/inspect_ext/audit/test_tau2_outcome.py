"""The tau2 outcome probe: gold, corrupted and empty replays through the domain's own scorer."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.audit_inspect_cmd import inspect_app
from agentmetrology.inspect_ext.audit.load import load_task
from agentmetrology.inspect_ext.audit.tau2_outcome import outcome_verdict, scripts
from agentmetrology.inspect_ext.audit.tau2_tools import end_state, toolkit


@pytest.fixture(scope="module")
def retail() -> dict[str, Any]:
    loaded = load_task("inspect_evals/tau2_retail", {"shuffle": False}, None)
    return {str(s.id): dict(s.metadata) for s in loaded.samples}


@pytest.fixture(scope="module")
def airline() -> dict[str, Any]:
    loaded = load_task("inspect_evals/tau2_airline", {"shuffle": False}, 4)
    return {str(s.id): dict(s.metadata) for s in loaded.samples}


def test_the_corruption_is_one_that_changes_the_gold_end_state(retail):
    # Task 22 writes the user's address twice: changing the first write's user_id is
    # overwritten by the second, so the probe takes the first change that matters.
    kit = toolkit("retail")
    made = scripts(retail["22"], kit)
    gold, bad = made["gold"], made["corrupted"]
    assert bad.corrupted == ("modify_pending_order_address.order_id: '#W9911714' -> "
                             "'#W9911714-agm'")
    assert end_state(kit, list(bad.calls)) != end_state(kit, list(gold.calls))


def test_a_task_whose_gold_writes_change_nothing_has_no_corrupted_variant(retail):
    # Task 105's one gold write is refused by the domain's tools: the gold end state is the
    # start state, a do-nothing agent passes it, and no corruption can be told from gold.
    made = scripts(retail["105"], toolkit("retail"))
    assert made["corrupted"].startswith("no single write-argument change alters the gold end "
                                        "state")
    assert len(made["gold"].calls) == 1


def test_required_outputs_are_withheld_when_nothing_is_written(airline):
    made = scripts(airline["3"], toolkit("airline"))
    assert made["gold"].closing == "4"
    assert (made["corrupted"].closing, made["corrupted"].corrupted) == (
        "Done.", "the required outputs withheld")
    assert scripts(airline["0"], toolkit("airline"))["corrupted"] == (
        "no write action and no required output among the gold criteria")


def _cell(value: float | None) -> Any:
    return SimpleNamespace(value=value, status="ok" if value is not None else "invalid")


def _verdict(table: dict[str, tuple[float | None, float | None, float | None]]) -> Any:
    cells, empty = {}, {}
    for sid, (gold, bad, none) in table.items():
        cells[(sid, "gold", 0)] = _cell(gold)
        cells[(sid, "corrupted", 0)] = _cell(bad)
        empty[(sid, "empty_trajectory", 0)] = _cell(none)
    return outcome_verdict(cells, empty, {sid: {} for sid in table})


def test_the_verdict_pass_fail_and_insufficient():
    ok = _verdict({"a": (1.0, 0.0, 0.0), "b": (1.0, 0.0, 0.0), "c": (1.0, 0.0, 1.0)})
    assert (ok["status"], ok["n"], ok["empty_passed"]) == ("pass", 3, ["c"])
    few = _verdict({"a": (1.0, 0.0, 0.0), "b": (1.0, 0.0, 0.0)})
    assert (few["status"], few["n"]) == ("insufficient evidence", 2)
    bad = _verdict({"a": (1.0, 1.0, 0.0)})  # one offending task fails at any n
    assert (bad["status"], bad["offending"]) == ("fail", ["a"])
    # A gold replay that does not pass is not a comparison: counted apart, never offending.
    odd = _verdict({"a": (0.0, 0.0, 0.0), "b": (1.0, 0.0, 0.0)})
    assert (odd["gold_not_passing"], odd["offending"], odd["n"]) == (["a"], [], 1)
    unscored = _verdict({"a": (1.0, None, 0.0)})
    assert unscored["n"] == 0 and unscored["not_formed"] == {"a": {}}


def test_audit_inspect_reads_tau2_criterion_from_the_outcome_probe(tmp_path):
    # Airline's first four tasks: 2 can be corrupted (a write, a required output); 2 cannot
    # (a do-nothing agent passes them). Two comparisons are below the minimum of 3.
    res = CliRunner().invoke(inspect_app, ["inspect", "inspect_evals/tau2_airline", "--limit", "4",
                                           # generous: a loaded CI machine must not turn a
                                           # slow tau2 scorer into an unscored cell
                                           "--scorer-timeout", "600",
                                           "--json", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "audit.json").read_text())
    crit = doc["card"]["configurations"][0]["rows"]["criterion_sensitivity"]
    assert crit["status"] == "not probed"
    assert crit["evidence"]["reason"] == ("insufficient evidence (n = 2 tasks compared (gold "
                                          "vs corrupted), needs 3)")
    scores = crit["evidence"]["scores"]
    assert scores["2"] == {"gold": 1.0, "corrupted": 0.0, "empty": 0.0}
    assert scores["3"] == {"gold": 1.0, "corrupted": 0.0, "empty": 0.0}
    assert scores["0"] == {"gold": 1.0, "corrupted": None, "empty": 1.0}
    assert doc["card"]["configurations"][0]["licensed_claim"] == "no claim licensed"
