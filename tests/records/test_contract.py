"""records/contract.py pinned value by value: paths, the two gates, the conjunction, binding.

Each expected value is written out: the exact CheckResult (name, kind, status, reasons) of each
branch of `check`, every reason text of `conjunction`, the whole ContractResult of `evaluate`
on bound and unbound evidence, the plain-data forms, and the refusals of a malformed contract.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.records.contract import (
    CheckResult,
    Contract,
    ContractError,
    ContractResult,
    Evidence,
    MissingEvidence,
    Obligation,
    Verdict,
    check,
    conjunction,
    evaluate,
    has_path,
    identity_mismatch,
    lookup,
    overlaps,
)

DOC: dict[str, Any] = {"identity": {"contract": "c@2", "task": "t1"}, "goal": True,
                       "items": [10, 20], "text": "abc", "n": 5, "state": {"x": {"y": 1}}}


def _reads(*paths: str, verdict: Verdict = ("PASS", ""), kind: Any = "side_effect",
           name: str = "o", extra: str | None = None, error: Exception | None = None
           ) -> Obligation:
    """An obligation reading `paths` (and `extra`, undeclared), then giving `verdict`."""
    def pred(ev: Evidence) -> Verdict:
        for p in paths:
            ev.get(p)
        if extra is not None:
            ev.get(extra)
        if error is not None:
            raise error
        return verdict
    return Obligation(name, kind, paths, pred)


@pytest.mark.parametrize(("path", "value"), [
    ("goal", True), ("items.0", 10), ("items.1", 20), ("state.x.y", 1), ("state.x", {"y": 1})])
def test_lookup_follows_mappings_and_list_indexes(path: str, value: Any) -> None:
    assert lookup(DOC, path) == value and has_path(DOC, path)


@pytest.mark.parametrize("path", [
    "nope", "items.2", "items.-1", "items.x", "text.0", "n.0", "state.x.z", "goal.0", ""])
def test_lookup_refuses_what_the_document_does_not_hold(path: str) -> None:
    with pytest.raises(MissingEvidence) as err:
        lookup(DOC, path)
    assert err.value.path == path and err.value.args == (path,)
    assert not has_path(DOC, path)


@pytest.mark.parametrize(("a", "b", "want"), [
    ("a", "a", True), ("a.b", "a", True), ("a", "a.b", True), ("ab", "a", False),
    ("a", "ab", False), ("a.b", "a.c", False), ("aXb", "a", False)])
def test_overlaps_is_the_path_or_under_it(a: str, b: str, want: bool) -> None:
    assert overlaps(a, b) is want


def test_the_complete_gate_is_the_default_and_refuses_withheld_or_missing_paths() -> None:
    o = _reads("state.x", verdict=("FAIL", "broken"), kind="permission")
    hidden = Evidence(DOC, ("state.x.y",))
    assert check(o, hidden) == CheckResult("o", "permission", "UNKNOWN", ("withheld: state.x.y",))
    assert check(o, hidden, "raw") == CheckResult("o", "permission", "FAIL", ("broken",))
    gone = _reads("absent", kind="transaction")
    assert check(gone, Evidence(DOC)) == CheckResult("o", "transaction", "UNKNOWN",
                                                     ("missing evidence: absent",))
    assert check(gone, Evidence(DOC), "raw") == CheckResult("o", "transaction", "FAIL",
                                                            ("missing path absent",))


def test_an_undeclared_read_is_told_apart_as_withheld_or_missing() -> None:
    # An evaluator-facing copy: the withheld paths are gone from the document itself.
    copy = {k: v for k, v in DOC.items() if k != "state"}
    o = _reads("goal", extra="state.x.y", kind="interaction")
    assert check(o, Evidence(copy, ("state",))) == CheckResult(
        "o", "interaction", "UNKNOWN", ("withheld: state.x.y",))
    missing = _reads("goal", extra="nope", kind="interaction")
    assert check(missing, Evidence(copy, ("state",))) == CheckResult(
        "o", "interaction", "UNKNOWN", ("missing evidence: nope",))
    assert check(missing, Evidence(DOC)) == CheckResult(
        "o", "interaction", "UNKNOWN", ("missing evidence: nope",))


def test_a_raising_predicate_is_invalid_unless_a_raw_checker_saw_incomplete_data() -> None:
    o = _reads("goal", error=ValueError("bad shape"), kind="side_effect")
    why = ("the predicate raised ValueError: bad shape",)
    assert check(o, Evidence(DOC)) == CheckResult("o", "side_effect", "INVALID", why)
    assert check(o, Evidence(DOC), "raw") == CheckResult("o", "side_effect", "INVALID", why)
    # Something withheld (not what this check reads): the gate still calls it a checker bug.
    assert check(o, Evidence(DOC, ("items",))) == CheckResult("o", "side_effect", "INVALID", why)
    assert check(o, Evidence(DOC, ("items",)), "raw") == CheckResult("o", "side_effect", "FAIL",
                                                                     why)


def test_a_verdict_without_a_reason_has_no_reasons() -> None:
    assert check(_reads("goal", kind="goal"), Evidence(DOC)) == \
        CheckResult("o", "goal", "PASS", ())
    assert check(_reads("goal", verdict=("FAIL", "why")), Evidence(DOC)) == \
        CheckResult("o", "side_effect", "FAIL", ("why",))


def test_conjunction_reasons_word_for_word() -> None:
    two = CheckResult("a", "goal", "INVALID", ("r1", "r2"))
    assert conjunction([two, CheckResult("b", "x", "FAIL")]) == ("INVALID", ("a: r1; r2",))
    assert conjunction([CheckResult("a", "x", "FAIL", ("r1", "r2")),
                        CheckResult("b", "x", "PARTIAL"), CheckResult("c", "x", "UNKNOWN")]) \
        == ("FAIL", ("a fail: r1; r2", "b partial"))
    assert conjunction([CheckResult("a", "x", "PASS"), CheckResult("b", "x", "UNKNOWN"),
                        CheckResult("c", "x", "UNKNOWN", ("r1", "r2"))]) == \
        ("UNKNOWN", ("b unknown", "c unknown: r1; r2"))
    assert conjunction([CheckResult("a", "x", "PASS")]) == ("PASS", ())
    assert conjunction([]) == ("UNKNOWN", ("no checks",))


CONTRACT = Contract("c", "2", _reads("goal", kind="goal", name="g"),
                    (_reads("items.0", "goal", name="first", verdict=("FAIL", "too small")),
                     _reads("state.x.y", "items.0", name="deep")))


def test_evaluate_on_bound_evidence_gives_the_whole_result() -> None:
    got = evaluate(CONTRACT, DOC)
    checks = (CheckResult("g", "goal", "PASS"),
              CheckResult("first", "side_effect", "FAIL", ("too small",)),
              CheckResult("deep", "side_effect", "PASS"))
    assert got == ContractResult("c@2", checks[0], checks, "FAIL", ("first fail: too small",),
                                 "complete", ())
    withheld = evaluate(CONTRACT, DOC, withheld=["state"], expected={"task": "t1"})
    assert withheld.withheld == ("state",) and withheld.gate == "complete"
    assert withheld.checks[2] == CheckResult("deep", "side_effect", "UNKNOWN",
                                             ("withheld: state",))
    raw = evaluate(CONTRACT, DOC, gate="raw", withheld=["state"])
    assert raw.gate == "raw" and raw.checks[2].status == "PASS"  # the raw checker reads it
    assert got.as_dict() == {
        "contract": "c@2", "gate": "complete", "withheld": [], "goal": "PASS",
        "status": "FAIL", "reasons": ["first fail: too small"],
        "checks": [{"name": "g", "kind": "goal", "status": "PASS", "reasons": []},
                   {"name": "first", "kind": "side_effect", "status": "FAIL",
                    "reasons": ["too small"]},
                   {"name": "deep", "kind": "side_effect", "status": "PASS", "reasons": []}]}
    assert withheld.as_dict()["withheld"] == ["state"]


@pytest.mark.parametrize(("doc", "expected", "why"), [
    ({"goal": True}, None, "the evidence carries no identity"),
    ({"identity": ["c@2"]}, None, "the evidence identity is not an object"),
    ({"identity": {"contract": "c@1"}}, None, "evidence bound to contract 'c@1', not 'c@2'"),
    (DOC, {"task": "t2"}, "evidence bound to task 't1', expected 't2'"),
    (DOC, {"seed": 3}, "evidence bound to seed None, expected 3"),
    ({**DOC, "identity": {**DOC["identity"], "problem": "replay diverges at event 3"}},
     {"task": "t1"}, "replay diverges at event 3"),
])
def test_unbound_evidence_is_invalid_for_every_check(doc: dict[str, Any],
                                                     expected: dict[str, Any] | None,
                                                     why: str) -> None:
    assert identity_mismatch(CONTRACT, Evidence(doc), expected) == why
    got = evaluate(CONTRACT, doc, withheld=("items",), expected=expected)
    checks = tuple(CheckResult(n, k, "INVALID", (why,)) for n, k in
                   (("g", "goal"), ("first", "side_effect"), ("deep", "side_effect")))
    assert got == ContractResult("c@2", checks[0], checks, "INVALID", (why,), "complete",
                                 ("items",))
    assert evaluate(CONTRACT, doc, gate="raw", expected=expected).gate == "raw"


def test_bound_evidence_has_no_mismatch() -> None:
    assert identity_mismatch(CONTRACT, Evidence(DOC), {"task": "t1"}) == ""
    assert identity_mismatch(CONTRACT, Evidence(DOC), None) == ""


def test_paths_lists_each_read_once_in_order() -> None:
    assert CONTRACT.paths() == ("goal", "items.0", "state.x.y")
    assert CONTRACT.ident == "c@2"


def test_malformed_contracts_are_refused_with_one_line() -> None:
    goal = _reads("goal", kind="goal", name="g")
    with pytest.raises(ContractError) as err:
        Contract("c", "1", goal, (_reads(name="a"), _reads(name="b"), _reads(name="a"),
                                  _reads(name="b")))
    assert str(err.value) == "contract 'c' names a, b twice; obligation names must be unique"
    kinds = "permission, side_effect, transaction, interaction"
    for bad in ("goal", "effect"):
        with pytest.raises(ContractError) as err:
            Contract("c", "1", goal, (_reads(name="a", kind=bad),))
        assert str(err.value) == (f"contract 'c': obligation 'a' has kind {bad!r}; use one of "
                                  f"{kinds}")
    with pytest.raises(ContractError) as err:
        Contract("c", "1", _reads(name="g"))
    assert str(err.value) == ("contract 'c': its goal 'g' has kind 'side_effect'; a goal has "
                              "kind 'goal'")
