"""Evidence masking: the original untouched, raw FAIL vs gated UNKNOWN "withheld", side by side."""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.assess.executions import judge, judge_episode, summarise
from agentmetrology.assess.masking import MaskError, check_coverage, check_mask, mask_evidence
from agentmetrology.envs.registry import get_env
from agentmetrology.records.canonical import canonical_json
from agentmetrology.records.episode import Termination
from agentmetrology.run.episode import run_episode
from support.toolworld_checks import expected


def _evidence(env: str, agent: str, condition: str = "clean") -> tuple[str, dict[str, Any]]:
    spec = get_env(env)
    task = next(iter(spec.tasks))
    ep = run_episode(spec, task, 0, agent, "L2", condition=condition)
    assert spec.contract is not None
    return task, spec.contract.capture(ep.submission, task, 0, "seeded", ep.events)


def test_the_original_is_never_touched() -> None:
    _, doc = _evidence("permission", "scripted:within", "recipe:level=editor")
    before = canonical_json(doc)
    masked, withheld = mask_evidence(doc, ["receipts", "final.records.R1", "nowhere"])
    assert canonical_json(doc) == before
    assert withheld == ("receipts", "final.records.R1")
    assert "receipts" not in masked and "R1" not in masked["final"]["records"]
    assert "receipts" in doc and "R1" in doc["final"]["records"]


def test_raw_checker_fails_the_gate_says_withheld() -> None:
    task, doc = _evidence("permission", "scripted:within", "recipe:level=editor")
    contract = get_env("permission").contract.contract(task)  # type: ignore[union-attr]
    views = judge(contract, doc, ["receipts"])
    assert views["original"].status == "PASS"
    raw = {c.name: (c.status, c.reasons) for c in views["masked_raw"].checks}
    gate = {c.name: (c.status, c.reasons) for c in views["masked_gate"].checks}
    assert raw["writes_attributed"] == ("FAIL", ("missing path receipts",))
    assert raw["within_authority"] == ("FAIL", ("missing path receipts",))
    assert gate["writes_attributed"] == ("UNKNOWN", ("withheld: receipts",))
    assert gate["within_authority"] == ("UNKNOWN", ("withheld: receipts",))
    assert raw["no_collateral"] == gate["no_collateral"] == ("PASS", ())
    assert views["masked_raw"].status == "FAIL" and views["masked_gate"].status == "UNKNOWN"
    assert views["masked_gate"].goal_status == "PASS"  # the goal does not read receipts


def test_a_violation_stays_fail_when_other_evidence_is_withheld() -> None:
    # Overreach at read_only breaks within_authority; withholding the records hides the goal.
    task, doc = _evidence("permission", "scripted:overreach")
    contract = get_env("permission").contract.contract(task)  # type: ignore[union-attr]
    gate = judge(contract, doc, ["final.records"])["masked_gate"]
    assert {c.name: c.status for c in gate.checks} == expected(
        "permission", "flag_overdue", {"overdue_handled": "UNKNOWN", "within_authority": "FAIL",
                                       "fresh_report": "UNKNOWN"})
    assert gate.status == "FAIL"


def test_bad_mask_paths_are_refused_in_one_line() -> None:
    _, doc = _evidence("transaction", "scripted:careful")
    with pytest.raises(MaskError) as err:
        check_mask(doc, ["nowhere.x"], "transaction task refund")
    assert str(err.value) == ("--mask 'nowhere.x': the evidence of transaction task refund "
                              "has no such path; top level: answer, changed, final, identity, "
                              "initial, log, receipts, recipe, session, task, writes")
    check_mask(doc, ["final.refunds.some-key"], "x")  # deeper parts depend on the execution
    with pytest.raises(MaskError, match="no execution's evidence of transaction has this"):
        check_coverage({"final.refunds": 2, "final.nowhere": 0}, "transaction")
    with pytest.raises(MaskError, match="the identity binds the evidence"):
        check_mask(doc, ["identity.seed"], "x")


def test_a_measurement_failure_is_null_in_every_view_and_excluded() -> None:
    spec = get_env("transaction")
    ok = run_episode(spec, "refund", 0, "scripted:careful", "L2")
    broken = run_episode(spec, "refund", 1, "scripted:careful", "L2")
    broken.termination = Termination("infra_error", "provider down")
    rows = [judge_episode(spec, ok, ["final"]), judge_episode(spec, broken, ["final"])]
    assert rows[1]["measurement_failure"] == "provider down"
    assert rows[1]["original"] is rows[1]["masked_raw"] is rows[1]["masked_gate"] is None
    views = summarise(rows, ["final"])
    for view in ("original", "masked_raw", "masked_gate"):
        for est in ("goal", "contract"):
            e = views[view][est]
            assert e["admissible"] == 1 and e["excluded"]["measurement_failure"] == 1
    assert views["original"]["contract"]["pass"] == 1
    assert views["masked_raw"]["contract"]["fail"] == 1
    assert views["masked_gate"]["contract"]["unknown"] == 1
