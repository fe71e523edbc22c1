"""A diagnose report derived again from its store, for `agm evidence qualify --recompute`.

diagnose.json records what its numbers depend on besides the store: the analysis seed and the
pass threshold (the margin and the sweep are the package's). Running the diagnose again with
them, at the report's chain length, gives the same document; a number edited in the report
does not survive the comparison. A judge audit is not run again (its model calls would be
paid for and need not answer alike): it is computed again from the verdicts and requests the
store keeps under the audit's run id (diagnose.judge_again). A judge audit whose verdicts the
store does not keep (run before they were kept, or the store could not be written) is left
out with the report digest that covers it, and said so; every other section is compared.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology.archive.importers.agm_store import open_store
from agentmetrology.diagnose.judge_again import StoredJudging, report_run, stored_judging
from agentmetrology.diagnose.run import SCHEMA, diagnose_store
from agentmetrology.records.canonical import to_plain
from agentmetrology.records.errors import NotDerivedAgain, UserError

NOT_COMPARED = frozenset({"store", "evidence"})  # the store's name as given; the check now
JUDGED = frozenset({"judge_audit", "digest"})  # left out when a judge audit is not derived
KEPT = ("the judge audit is derived again from the verdicts and requests the store keeps "
        "(its model calls are not repeated)")
NOT_KEPT = ("the judge audit is not derived again: the store keeps no verdict of it (an audit "
            "run before verdicts were kept, or one the store could not be written for), and "
            "its model calls are not repeated: judge_audit and the report digest covering it "
            "are not compared")


def is_diagnose(doc: dict[str, Any]) -> bool:
    """Return True when `doc` says it is a diagnose report."""
    return doc.get("schema") == SCHEMA


def _judge_alone(doc: dict[str, Any]) -> bool:
    pairs = doc.get("pairs")
    return (doc.get("judge_audit") is not None and not doc.get("groups")
            and isinstance(pairs, dict) and pairs.get("total") == 0)


def _stored(doc: dict[str, Any], store: Path) -> StoredJudging | None:
    """Return the verdicts the store keeps for the report's judge audit (None: none)."""
    run = report_run(doc.get("judge_audit"))
    if run is None:
        return None
    with open_store(store) as st:
        return stored_judging(st, run)


def diagnose_again(doc: dict[str, Any], store: Path) -> dict[str, Any]:
    """Return the diagnose of `store` run again with the report's seed and threshold, its judge
    audit computed from the verdicts the store keeps; UserError when the report's parameters
    are not ones diagnose takes, NotDerivedAgain when it is a judge audit alone whose verdicts
    the store does not keep."""
    seed, tau = doc.get("analysis_seed"), doc.get("tau")
    if type(seed) is not int or seed < 0:
        raise UserError(f"its analysis_seed is {seed!r}, not a non-negative integer")
    if not isinstance(tau, int | float) or isinstance(tau, bool):
        raise UserError(f"its tau is {tau!r}, not a number")
    judged = _stored(doc, store) if doc.get("judge_audit") is not None else None
    if judged is None and _judge_alone(doc):
        raise NotDerivedAgain("the report is a judge audit alone, the store keeps no verdict "
                              "of it, and its model calls are not repeated (no mutated pair "
                              "to derive again)")
    return diagnose_store(store, seed, tau=float(tau), judged=judged)


def diagnose_comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """Return the sections of a diagnose report compared with a recomputed one."""
    return to_plain({k: v for k, v in doc.items() if k not in NOT_COMPARED})


def diagnose_left_out(report: dict[str, Any], again: dict[str, Any]) -> frozenset[str]:
    """Return the sections a comparison with this report leaves out on both sides: the judge
    audit and the digest covering it, when the report has one the store's verdicts do not
    give again."""
    if report.get("judge_audit") is not None and again.get("judge_audit") is None:
        return JUDGED
    return frozenset()


def diagnose_notes(report: dict[str, Any], again: dict[str, Any]) -> list[str]:
    """Return how a recomputation of this report treated its judge audit, in words."""
    if report.get("judge_audit") is None:
        return []
    return [KEPT if again.get("judge_audit") is not None else NOT_KEPT]
