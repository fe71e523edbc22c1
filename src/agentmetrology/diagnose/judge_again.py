"""A judge audit derived again from the store that kept its verdicts, without the judge.

`agm diagnose --judge-model` keeps every judge answer (`grader_verdicts`) and every billable
request (`grader_calls`) in the store, under the audit's run id (diagnose.judge_record). Read
back, they give the same cells and attempts the audit was computed from, so its document is
computed again (judge.judge_document) and compared with the report: a number edited in a
report's judge audit does not survive `agm evidence qualify --recompute`. The episodes shown
are found again as the audit found them (the first recorded originals, as many as it judged);
a store whose verdicts name other episodes cannot be the report's.

The store keeps every name and text of a verdict redacted (a judge, an episode key or a reason
can match a credential pattern), so the audit's own document is computed from the verdicts as
the store keeps them too (`judged_as_kept`), never from the cells before redaction: the report
then holds no credential, and `--recompute` derives the same document from the same rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmetrology.diagnose.judge import Cell, judge_document
from agentmetrology.diagnose.judge_brief import JudgeCase
from agentmetrology.diagnose.judge_record import PURPOSE
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.errors import UserError
from agentmetrology.store import EvidenceStore
from agentmetrology.store.grader_verdicts import grader_verdicts


@dataclass(frozen=True, slots=True)
class StoredJudging:
    """A judge audit's run as the store keeps it: its cells, attempts and what was recorded."""

    run: str
    cells: list[Cell]
    attempts: dict[str, list[BillableAttempt]]
    calls: int
    episodes: int
    recorded: dict[str, Any]
    named: Callable[[str], str]  # an episode key as the store names it in a verdict (redacted)


def report_run(judge_audit: Any) -> str | None:
    """Return the run id a report's judge audit says its verdicts were kept under, or None."""
    recorded = judge_audit.get("recorded_in_store") if isinstance(judge_audit, dict) else None
    run = recorded.get("run") if isinstance(recorded, dict) else None
    return run if isinstance(run, str) and run else None


def stored_judging(store: EvidenceStore, run: str) -> StoredJudging | None:
    """Return the verdicts and billable requests the store keeps for a judge audit's run;
    None when it keeps no verdict of it (an audit from before verdicts were kept, or one the
    store could not be written for)."""
    verdicts = grader_verdicts(store, run)
    if not verdicts:
        return None
    cells = [Cell(v.grader, v.subject, v.view, v.call, v.verdict, v.reason, v.answer)
             for v in verdicts]
    prefix = f"{run}:"
    attempts: dict[str, list[BillableAttempt]] = {c.judge: [] for c in cells}  # judge order
    rows = [r for r in store.grader_calls()
            if r["purpose"] == PURPOSE and str(r["billing_id"]).startswith(prefix)]
    for r in rows:
        attempts.setdefault(str(r["grader"]), []).append(BillableAttempt(
            str(r["billing_id"])[len(prefix):], r["provider"], r["model"], r["request_id"],
            r["input_tokens"], r["output_tokens"], r["cached_tokens"], r["cost"],
            r["latency_s"], r["outcome"]))
    recorded = {"recorded": len(rows), "not_recorded": 0, "run": run, "table": "grader_calls",
                "verdicts": len(verdicts), "verdict_table": "grader_verdicts"}
    return StoredJudging(run, cells, attempts, max(c.call for c in cells) + 1,
                         len({c.episode for c in cells}), recorded, store.redactor.text)


def judged_again(stored: StoredJudging, cases: Sequence[JudgeCase],
                 native: dict[str, bool], seed: int) -> dict[str, Any]:
    """Return the judge audit's document computed again from its stored verdicts; UserError
    when they name episodes other than the ones the audit finds to show."""
    named = {c.episode_id: stored.named(c.episode_id) for c in cases}
    cases = [dataclasses.replace(c, episode_id=named[c.episode_id]) for c in cases]
    native = {named.get(k, k): v for k, v in native.items()}
    shown = {c.episode_id for c in cases}
    judged = {c.episode for c in stored.cells}
    if judged != shown:
        raise UserError(f"the verdicts the store keeps for judge run {stored.run} name "
                        f"{len(judged - shown)} episode(s) the audit does not show and miss "
                        f"{len(shown - judged)}: they are not this report's")
    doc = judge_document(cases, stored.cells, stored.attempts, stored.calls, native, seed)
    doc["recorded_in_store"] = stored.recorded
    return doc


def judged_as_kept(path: Path, run: str, cases: Sequence[JudgeCase],
                   native: dict[str, bool], seed: int) -> dict[str, Any] | None:
    """Return the document of a judge audit just recorded under `run` in the store at `path`,
    computed from its verdicts and requests as the store keeps them (None: it keeps none)."""
    with EvidenceStore.open_readonly(path) as store:
        stored = stored_judging(store, run)
    return None if stored is None else judged_again(stored, cases, native, seed)
