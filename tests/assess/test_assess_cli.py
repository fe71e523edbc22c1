"""`agm assess`: both estimands, the envelope, original vs masked views; bad input in one line.

Which processes: the first bad input is refused by a real `agm` process (exit status 2, one line on
stderr); the other refusals run `cli.main.main` in this process (`support.agm_runs.run_main`:
the same argv, stdout, stderr and exit code), which saves ~0.5 s of imports per command.
"""

from __future__ import annotations

import json
from dataclasses import replace

from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.envs.registry import get_env, register, unregister
from agentmetrology.records.contract import Contract, ContractHooks, Obligation
from support.agm_runs import agm, agm_process


def test_json_pins_both_estimands_and_every_view() -> None:
    res = CliRunner().invoke(app, ["assess", "clarification", "--agent", "scripted:ignore_reply",
                                   "--seeds", "0-29", "--mask", "log", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["executions"] == 30 and doc["masked"] == ["log"]
    orig = doc["views"]["original"]
    assert (orig["goal"]["pass"], orig["goal"]["fail"], orig["goal"]["unknown"]) == (30, 0, 0)
    c = orig["contract"]
    assert (c["pass"], c["fail"], c["unknown"]) == (11, 10, 9)
    assert c["envelope_counts"] == ["11/30", "20/30"]
    assert c["decided_ratio_exact"] == "11/21" and c["coverage_exact"] == "7/10"
    raw, gate = doc["views"]["masked_raw"]["contract"], doc["views"]["masked_gate"]["contract"]
    assert (raw["pass"], raw["fail"], raw["unknown"]) == (0, 30, 0)
    assert (gate["pass"], gate["fail"], gate["unknown"]) == (0, 0, 30)
    assert doc["views"]["original"]["checks"]["figures_as_replied"] == {
        "FAIL": 10, "PASS": 11, "UNKNOWN": 9}
    row = doc["rows"][1]  # seed 1: the requester is unavailable
    assert row["original"]["checks"]["figures_as_replied"] == "UNKNOWN"
    assert row["masked_gate"]["check_reasons"]["asked_first"] == ["withheld: log"]
    assert row["masked_raw"]["check_reasons"]["asked_first"] == ["missing path log"]
    assert doc["withheld_in"] == {"log": 30}


def test_a_mask_inside_a_field_a_predicate_indexes_is_no_crash() -> None:
    # Regression: a predicate that indexed a masked sub-field raised KeyError (a traceback).
    res = CliRunner().invoke(app, ["assess", "comtrade", "--agent", "scripted:fabricator",
                                   "--task", "T3_duplicates", "--seeds", "0",
                                   "--mask", "submission.spurious", "--json"])
    assert res.exit_code == 0, res.output
    views = json.loads(res.output)["views"]
    assert views["masked_gate"]["checks"]["no_fabricated_rows"] == {"UNKNOWN": 1}
    assert views["masked_raw"]["checks"]["no_fabricated_rows"] == {"FAIL": 1}
    assert views["masked_gate"]["checks"]["exact_rows"] == {"FAIL": 1}  # reads other fields


def test_text_fits_80_columns_and_says_the_envelope() -> None:
    res = CliRunner().invoke(app, ["assess", "clarification", "--agent", "scripted:clarify",
                                   "--seeds", "0-29"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert ("original    contract   30   21    0    9  [70.0%, 100.0%]  21/21 100.0%    70.0%"
            in lines)


def test_bad_input_is_one_line_exit_2() -> None:
    for i, (args, message) in enumerate([
        (["permission", "--agent", "scripted:within", "--condition", "recipe:colour=red"],
         "error: unknown recipe parameter 'colour' of permission; known: level "
         "(read_only | editor | admin)"),
        (["permission", "--agent", "scripted:within", "--mask", "nowhere"],
         "error: --mask 'nowhere': the evidence of permission task flag_overdue has no such "
         "path; top level: answer, authority, changed, final, identity, initial, log, "
         "receipts, recipe, session, writes"),
        (["permission", "--agent", "scripted:within", "--mask", "final.nowhere"],
         "error: --mask 'final.nowhere': no execution's evidence of permission has this path"),
        (["permission", "--agent", "scripted:within", "--mask", "identity"],
         "error: --mask 'identity': the identity binds the evidence and cannot be withheld"),
        (["researchops", "--agent", "scripted:careful"],
         "error: environment 'researchops' declares no task contract; `agm assess` needs one "
         "(EnvSpec.contract)"),
        (["permission", "--agent", "scripted:nobody"],
         "error: unknown agent 'scripted:nobody'; permission has: scripted:within, "
         "scripted:overreach, scripted:collateral, scripted:silent, scripted:careless, "
         "scripted:stale_list, scripted:blank_doc, scripted:impersonate, scripted:reopen, "
         "scripted:goodwill"),
    ]):
        res = (agm_process if i == 0 else agm)("assess", *args, "--seeds", "0")
        assert res.returncode == 2, res.stderr
        assert res.stderr.strip() == message and res.stdout == ""


def test_a_plugin_contract_naming_a_missing_path_is_refused_in_one_line() -> None:
    spec = get_env("permission")
    assert spec.contract is not None
    hooks = spec.contract

    def bad(task: str) -> Contract:
        good = hooks.contract(task)
        typo = Obligation("typo", "side_effect", ("final.recrods",), good.goal.predicate)
        return Contract("bad", "1", good.goal, (typo,)).validate(
            hooks.capture(None, task, 0, "seeded", ()))

    register(replace(spec, name="badcontract", contract=ContractHooks(bad, hooks.capture)))
    try:
        res = agm("assess", "badcontract", "--agent", "scripted:within", "--seeds", "0")
    finally:
        unregister("badcontract")
    assert res.returncode == 2
    assert res.stdout == ""
    assert res.stderr.strip() == (
        "error: contract 'bad': 'typo' reads state path 'final.recrods', which the evidence "
        "does not have (top level: answer, authority, changed, final, identity, initial, log, "
        "receipts, recipe, session, writes)")
