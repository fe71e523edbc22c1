"""Contracts: the three-valued conjunction, identity binding, path validation, raw vs gate."""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.records.contract import (
    CheckResult,
    Contract,
    ContractError,
    Evidence,
    Obligation,
    Verdict,
    check,
    conjunction,
    evaluate,
)
from agentmetrology.records.errors import UserError


def _is(path: str, want: Any) -> Obligation:
    def pred(ev: Evidence) -> Verdict:
        value = ev.get(path)
        if value is None:
            return "UNKNOWN", f"{path} undetermined"
        return ("PASS", "") if value == want else ("FAIL", f"{path} is {value!r}")
    return Obligation(path.replace(".", "_"), "goal" if path == "goal" else "side_effect",
                      (path,), pred)


CONTRACT = Contract("toy", "1", _is("goal", True), (_is("a", 1), _is("b", 2)))


def doc(**values: Any) -> dict[str, Any]:
    return {"identity": {"contract": "toy@1"}, "goal": True, "a": 1, "b": 2, **values}


def r(status: str) -> CheckResult:
    return CheckResult("x", "side_effect", status)  # type: ignore[arg-type]


@pytest.mark.parametrize(("statuses", "want"), [
    (("PASS", "PASS"), "PASS"),
    (("PASS", "FAIL"), "FAIL"),
    (("FAIL", "UNKNOWN"), "FAIL"),  # a missing fact elsewhere does not hide a violation
    (("UNKNOWN", "FAIL"), "FAIL"),
    (("PASS", "UNKNOWN"), "UNKNOWN"),
    (("PARTIAL", "PASS"), "FAIL"),  # partly met is not met
    (("PARTIAL", "UNKNOWN"), "FAIL"),
    (("INVALID", "FAIL"), "INVALID"),
    (("UNKNOWN", "UNKNOWN"), "UNKNOWN"),
    ((), "UNKNOWN"),
])
def test_conjunction(statuses: tuple[str, ...], want: str) -> None:
    assert conjunction(r(s) for s in statuses)[0] == want


def test_a_violation_is_fail_even_when_another_obligation_is_unknown() -> None:
    res = evaluate(CONTRACT, doc(a=None, b=3))
    assert [c.status for c in res.checks] == ["PASS", "UNKNOWN", "FAIL"]
    assert res.status == "FAIL" and res.goal_status == "PASS"
    assert res.reasons == ("b fail: b is 3",)


def test_pass_and_unknown() -> None:
    assert evaluate(CONTRACT, doc()).status == "PASS"
    res = evaluate(CONTRACT, doc(a=None))
    assert res.status == "UNKNOWN" and res.reasons == ("a unknown: a undetermined",)


def test_identity_or_contract_mismatch_is_invalid() -> None:
    other = evaluate(CONTRACT, {**doc(), "identity": {"contract": "toy@2"}})
    assert other.status == "INVALID" and other.goal_status == "INVALID"
    assert other.reasons == ("evidence bound to contract 'toy@2', not 'toy@1'",)
    res = evaluate(CONTRACT, doc(), expected={"seed": 3})
    assert res.status == "INVALID" and "seed" in res.reasons[0]
    assert evaluate(CONTRACT, {"goal": True, "a": 1, "b": 2}).status == "INVALID"
    problem = evaluate(CONTRACT, {**doc(), "identity": {"contract": "toy@1",
                                                        "problem": "replay diverges"}})
    assert problem.status == "INVALID" and problem.reasons == ("replay diverges",)


def test_a_path_the_evidence_lacks_is_refused_when_the_contract_is_built() -> None:
    with pytest.raises(UserError) as err:
        Contract("toy", "1", _is("goal", True), (_is("final.nowhere", 1),)).validate(doc())
    assert isinstance(err.value, ContractError)
    assert str(err.value) == ("contract 'toy': 'final_nowhere' reads state path "
                              "'final.nowhere', which the evidence does not have (top level: "
                              "a, b, goal, identity)")
    assert "\n" not in str(err.value)
    assert CONTRACT.validate(doc()) is CONTRACT


def test_bad_contracts_are_refused() -> None:
    with pytest.raises(ContractError, match="names a twice"):
        Contract("toy", "1", _is("goal", True), (_is("a", 1), _is("a", 2)))
    with pytest.raises(ContractError, match="has kind 'side_effect'; a goal has kind 'goal'"):
        Contract("toy", "1", _is("a", 1))


def test_raw_checker_fails_a_missing_path_the_gate_withholds_it() -> None:
    masked = {k: v for k, v in doc().items() if k != "b"}
    ob = CONTRACT.obligations[1]
    assert check(ob, Evidence(masked, ("b",)), "raw") == CheckResult(
        "b", "side_effect", "FAIL", ("missing path b",))
    assert check(ob, Evidence(masked, ("b",)), "complete") == CheckResult(
        "b", "side_effect", "UNKNOWN", ("withheld: b",))
    assert check(ob, Evidence(masked), "complete").reasons == ("missing evidence: b",)


def test_a_predicate_that_raises_is_invalid_or_a_raw_fail_on_a_masked_copy() -> None:
    def indexes(ev: Evidence) -> Verdict:
        return ("PASS", "") if ev.get("a")["x"] else ("FAIL", "")
    ob = Obligation("ix", "side_effect", ("a",), indexes)
    assert check(ob, Evidence({"a": {}}), "complete") == CheckResult(
        "ix", "side_effect", "INVALID", ("the predicate raised KeyError: 'x'",))
    assert check(ob, Evidence({"a": {}}, ("a.x",)), "raw").status == "FAIL"
    assert check(ob, Evidence({"a": {}}, ("a.x",)), "complete").reasons == ("withheld: a.x",)
