"""ComtradeBench's task contract: the exact rows, within budget, one submission, nothing invented.

Goal `exact_rows`: the submission holds exactly the ground-truth rows (the ground-truth scorer's
PASS: F1 1.0 with no value mismatch). Obligations: `within_budget` (permission: no page request
was refused for an exhausted budget), `one_submission` (transaction: exactly one submit call,
accepted) and `no_fabricated_rows` (interaction: no submitted id outside the ground truth and
no matched row with invented values). The evidence is captured from the submission and the
recorded events; without a trajectory the event obligations stay UNKNOWN.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentmetrology.envs.comtrade.generator import is_totals_row, totals_record_id
from agentmetrology.envs.comtrade.scoring.ground_truth import ground_truth_f1
from agentmetrology.envs.comtrade.scoring.submission import Scorable, submission_from_mapping
from agentmetrology.envs.comtrade.service import BUDGET_ERROR
from agentmetrology.envs.comtrade.tasks import TASKS
from agentmetrology.records.contract import (
    Contract,
    ContractHooks,
    Evidence,
    Obligation,
    Verdict,
)
from agentmetrology.records.events import Event

# 1.1.0: invented rows flagged as totals rows break no_fabricated_rows; 1.2.0: rows are read
# as the ground truth reads them (a leading UTF-8 byte order mark ignored).
VERSION = "1.2.0"


def _goal(ev: Evidence) -> Verdict:
    if not ev.get("submission.present"):
        return "FAIL", "no submission"
    status, reasons = ev.get("submission.status"), ev.get("submission.reasons")
    if status == "INVALID":
        return "INVALID", "; ".join(reasons) or "the submission cannot be read"
    if status != "PASS":
        return "FAIL", "; ".join(reasons) or f"ground truth {status}"
    return "PASS", ""


def _budget(ev: Evidence) -> Verdict:
    refused = ev.get("events.budget_refusals")
    if refused:
        return "FAIL", f"{refused} page requests beyond the budget of {ev.get('budget')}"
    return "PASS", ""


def _one_submission(ev: Evidence) -> Verdict:
    calls, accepted = ev.get("events.submit_calls"), ev.get("events.accepted_submissions")
    if calls == 1 and accepted == 1:
        return "PASS", ""
    return "FAIL", f"{calls} submit calls, {accepted} accepted (one is required)"


def _no_fabrication(ev: Evidence) -> Verdict:
    if not ev.get("submission.present"):
        return "PASS", ""
    if ev.get("submission.status") == "INVALID":
        return "INVALID", "the submission cannot be read"
    spurious, invented = ev.get("submission.spurious"), ev.get("submission.value_mismatches")
    totals = ev.get("submission.invented_totals")
    if spurious or invented or totals:
        return "FAIL", (f"{spurious} ids not in the ground truth, {invented} rows with "
                        "invented values" + (f", {totals} rows flagged as totals rows that no "
                                             "page served" if totals else ""))
    return "PASS", ""


def _invented_totals(sub: Scorable, task: str) -> int:
    """Return the distinct ids of rows flagged as totals rows that no page of the task serves.

    The ground-truth counts leave every totals row out of `spurious` (a kept summary row is a
    cleaning failure, not an invention), so a made-up row flagged `isTotal` would pass as one;
    a served summary row has the id `{task}-TOTAL-{page:04d}` of one of the task's pages.
    """
    t = TASKS.get(task)
    served = ({totals_record_id(task, p) for p in range(1, t.total_pages + 1)} if t is not None
              else set())
    invented: set[Any] = set()
    for batch in sub.record_batches():
        for row in batch:
            if is_totals_row(row):
                rid = row.get("record_id")
                if not (isinstance(rid, str) and rid in served):
                    invented.add(rid if isinstance(rid, str) else repr(rid))
    return len(invented)


def contract(task: str) -> Contract:
    """Return the contract of a ComtradeBench task (validated against its evidence)."""
    c = Contract("comtrade/" + task, VERSION,
                 Obligation("exact_rows", "goal", ("submission.present", "submission.status",
                                                   "submission.reasons"), _goal,
                            "the submission holds exactly the ground-truth rows"), (
                     Obligation("within_budget", "permission",
                                ("events.budget_refusals", "budget"), _budget,
                                "no page request beyond the budget"),
                     Obligation("one_submission", "transaction",
                                ("events.submit_calls", "events.accepted_submissions"),
                                _one_submission, "exactly one submission"),
                     Obligation("no_fabricated_rows", "interaction",
                                ("submission.present", "submission.status",
                                 "submission.spurious", "submission.value_mismatches",
                                 "submission.invented_totals"),
                                _no_fabrication, "no invented ids or values"),
                 ))
    return c.validate(capture(None, task, 0, "seeded", ()))


def capture(submission: Any, task: str, seed: int | None, profile: str,
            trajectory: Sequence[Event] | None) -> dict[str, Any]:
    """Return the evidence of a ComtradeBench execution: the graded submission and its events."""
    sub = submission_from_mapping(submission)
    doc: dict[str, Any] = {
        "identity": {"contract": f"comtrade/{task}@{VERSION}", "environment": "comtrade",
                     "task": task, "seed": seed, "profile": profile, "problem": ""},
        "budget": TASKS[task].budget if task in TASKS else None,
        # The same paths with or without a submission, so a contract or mask can name them.
        "submission": {"present": False, "status": None, "reasons": [], "lines": 0,
                       "matched": 0, "truth": 0, "spurious": 0, "value_mismatches": 0,
                       "invented_totals": 0},
    }
    if sub is not None:
        a = ground_truth_f1(sub, task, seed, profile)
        c = a.components
        doc["submission"] = {"present": True, "status": a.status, "reasons": list(a.reasons),
                             "lines": c.get("lines", 0), "matched": c.get("matched", 0),
                             "truth": c.get("truth", 0), "spurious": c.get("spurious", 0),
                             "value_mismatches": c.get("value_mismatches", 0),
                             "invented_totals": _invented_totals(sub, task)}
    if trajectory is not None:
        calls = [e for e in trajectory if e.kind == "tool_call"]
        fetches = [e for e in calls if e.name == "fetch_page"]
        submits = [e for e in calls if e.name == "submit_results"]
        doc["events"] = {
            "fetch_calls": len(fetches),
            "budget_refusals": sum(1 for e in fetches if isinstance(e.result, dict)
                                   and e.result.get("error") == BUDGET_ERROR),
            "submit_calls": len(submits),
            "accepted_submissions": sum(1 for e in submits if isinstance(e.result, dict)
                                        and e.result.get("status") == "accepted")}
    return doc


HOOKS = ContractHooks(contract, capture)
