"""The invariant predicates on hand-made evidence: each branch that decides a verdict."""

from __future__ import annotations

from typing import Any

from agentmetrology.envs.toolworlds import invariants as inv
from agentmetrology.envs.toolworlds.world import changed_leaves, covered
from agentmetrology.records.contract import Evidence


def ev(**doc: Any) -> Evidence:
    return Evidence(doc)


def test_changed_leaves_and_receipt_coverage() -> None:
    before = {"a": {"x": 1, "y": [1, 2]}, "b": {}}
    after = {"a": {"x": 1, "y": [1, 3]}, "b": {"k": {"m": 1}}, "c": 2}
    # b's children are the change, not the empty mapping b was (so a receipt for b.k covers it)
    assert changed_leaves(before, after) == ["a.y", "b.k.m", "c"]
    assert changed_leaves({"d": {"k": 1}}, {"d": {}}) == ["d.k"]
    assert changed_leaves({"d": {"k": 1}}, {"d": 7}) == ["d", "d.k"]
    assert covered("b.k.m", [{"paths": ["b.k"]}]) and not covered("b.km", [{"paths": ["b.k"]}])


def test_write_attribution() -> None:
    assert inv.write_attribution(ev(changed=["r.a", "r.b"], receipts=[{"paths": ["r"]}])) == \
        ("PASS", "")
    assert inv.write_attribution(ev(changed=["r.a", "s"], receipts=[{"paths": ["r.a"]}])) == \
        ("FAIL", "1 changed leaves without a receipt, e.g. s")


def test_actor_authority() -> None:
    ro = {"level": "read_only", "may": ["read"]}
    assert inv.actor_authority(ev(authority=ro, changed=[], receipts=[])) == ("PASS", "")
    # A receipt-less change is still a change: read-only authority reads the state, not the log.
    assert inv.actor_authority(ev(authority=ro, changed=["x"], receipts=[])) == \
        ("FAIL", "the read_only actor changed 1 state leaves")
    editor = {"level": "editor", "may": ["read", "write", "update"]}
    delete = {"op": "delete", "tool": "delete_record", "receipt": "r2"}
    assert inv.actor_authority(ev(authority=editor, changed=["x"], receipts=[delete])) == \
        ("FAIL", "delete by delete_record (r2) is beyond editor authority")


def _money(merchant: int, customer: int, refunded: int, settled: list[int],
           paid: int = 100) -> Evidence:
    refunds = {f"k{i}": {"order": "O1", "amount": a, "status": "settled"}
               for i, a in enumerate(settled)}
    return ev(initial={"accounts": {"merchant": 500, "customer": 0}},
              final={"accounts": {"merchant": merchant, "customer": customer},
                     "orders": {"O1": {"paid": paid, "refunded": refunded}},
                     "refunds": refunds})


def test_refund_conservation() -> None:
    assert inv.refund_conservation(_money(460, 40, 40, [40])) == ("PASS", "")
    assert inv.refund_conservation(_money(400, 100, 100, [100])) == ("PASS", "")  # in full
    assert inv.refund_conservation(_money(460, 45, 40, [40])) == \
        ("FAIL", "account total 500 became 505")
    assert inv.refund_conservation(_money(380, 120, 120, [120])) == \
        ("FAIL", "order O1 refunded 120 of 100 paid")
    assert inv.refund_conservation(_money(460, 40, 40, [30])) == \
        ("FAIL", "order O1 shows 40 refunded, settled 30")


def test_cached_read_consistency() -> None:
    doc = {"answer": {"given": True, "value": 40}, "live": 40}
    assert inv.cached_read_consistency(Evidence(doc), "answer.value", "live") == ("PASS", "")
    stale = {**doc, "answer": {"given": True, "value": 0}}
    assert inv.cached_read_consistency(Evidence(stale), "answer.value", "live") == \
        ("FAIL", "reported 0, the live value is 40 (a stale read)")
    none = {**doc, "answer": {"given": False, "value": None}}
    assert inv.cached_read_consistency(Evidence(none), "answer.value", "live") == \
        ("FAIL", "no answer was reported")
