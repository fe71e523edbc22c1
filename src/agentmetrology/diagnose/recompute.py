"""A diagnose report derived again from its store, for `agm evidence qualify --recompute`.

diagnose.json records what its numbers depend on besides the store: the analysis seed and the
pass threshold (the margin and the sweep are the package's). Running the diagnose again with
them, at the report's chain length, gives the same document; a number edited in the report
does not survive the comparison. A judge audit is not run again (its model calls would be
paid for and need not answer alike): its section, and the report digest that covers it, are
left out and said so; every other section is compared.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology.diagnose.run import SCHEMA, diagnose_store
from agentmetrology.records.canonical import to_plain
from agentmetrology.records.errors import UserError

NOT_COMPARED = frozenset({"store", "evidence"})  # the store's name as given; the check now
JUDGED = frozenset({"judge_audit", "digest"})  # left out when a judge audit was run


def is_diagnose(doc: dict[str, Any]) -> bool:
    """Return True when `doc` says it is a diagnose report."""
    return doc.get("schema") == SCHEMA


def diagnose_other_inputs(doc: dict[str, Any]) -> str | None:
    """Return why a diagnose is not derived again without its judge: it is a judge audit
    alone (no mutated pair; None otherwise)."""
    pairs = doc.get("pairs")
    if (doc.get("judge_audit") is not None and not doc.get("groups")
            and isinstance(pairs, dict) and pairs.get("total") == 0):
        return ("the report is a judge audit alone, and its model calls are not repeated "
                "(no mutated pair to derive again)")
    return None


def diagnose_again(doc: dict[str, Any], store: Path) -> dict[str, Any]:
    """Return the diagnose of `store` run again with the report's seed and threshold, without
    its judge; UserError when the report's parameters are not ones diagnose takes."""
    seed, tau = doc.get("analysis_seed"), doc.get("tau")
    if type(seed) is not int or seed < 0:
        raise UserError(f"its analysis_seed is {seed!r}, not a non-negative integer")
    if not isinstance(tau, int | float) or isinstance(tau, bool):
        raise UserError(f"its tau is {tau!r}, not a number")
    return diagnose_store(store, seed, tau=float(tau))


def diagnose_comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """Return the sections of a diagnose report compared with a recomputed one."""
    return to_plain({k: v for k, v in doc.items() if k not in NOT_COMPARED})


def diagnose_left_out(report: dict[str, Any]) -> frozenset[str]:
    """Return the sections a comparison with this report leaves out on both sides: the judge
    audit and the digest covering it, when the report has one."""
    return JUDGED if report.get("judge_audit") is not None else frozenset()


def diagnose_notes(doc: dict[str, Any]) -> list[str]:
    """Return what a recomputation of this report leaves out, in words."""
    if doc.get("judge_audit") is None:
        return []
    return ["the judge audit is not derived again (its model calls are not repeated): "
            "judge_audit and the report digest covering it are not compared"]
