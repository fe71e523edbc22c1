"""The judges' requests and verdicts kept in the store they judged: a grader is evidence.

Every request a judge made (retries included) becomes a `grader_calls` row of the store,
sealed in its hash chain like every other row, with what it was judging. The billing id is
prefixed with this audit run's id, so a second audit with the same judge adds its own rows
instead of colliding with the first one's request numbers. Every answer becomes a
`grader_verdicts` row under the same run id (store.grader_verdicts), so the audit's numbers are
derived again from the store (diagnose.judge_again) without asking the judge again.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from pathlib import Path

from agentmetrology.diagnose.judge import Cell, JudgeCall
from agentmetrology.store import EvidenceStore
from agentmetrology.store.errors import StoreError
from agentmetrology.store.grader_verdicts import GraderVerdict, record_grader_verdicts
from agentmetrology.store.ledger import LedgerError

PURPOSE = "diagnose judge audit"


def store_recorder(path: Path,
                   into: dict[str, object]) -> Callable[[list[JudgeCall], list[Cell]], None]:
    """Return a recorder writing judge requests and verdicts into the store at `path` (opened
    for writing only then, as its single writer); it reports in `into` what it kept, or why
    not."""
    run = uuid.uuid4().hex[:12]

    def record(calls: list[JudgeCall], cells: list[Cell]) -> None:
        added = 0
        try:
            with EvidenceStore.open(path, create=False, write=True) as store:
                for c in calls:
                    billed = dataclasses.replace(c.attempt,
                                                 attempt_id=f"{run}:{c.attempt.attempt_id}")
                    added += store.record_grader_call(c.judge, PURPOSE, c.subject, billed)
                verdicts = record_grader_verdicts(store, run, PURPOSE, [
                    GraderVerdict(c.judge, c.episode, c.view, c.call, c.verdict, c.reason,
                                  c.answer) for c in cells])
        except (StoreError, LedgerError, OSError) as exc:
            # The audit stands; its document says what the store lacks and why (a campaign
            # writing it, a read-only directory).
            into.update(recorded=added, not_recorded=len(calls) - added,
                        reason=f"the store could not be written: {exc}")
            return
        into.update(recorded=added, not_recorded=0, run=run, table="grader_calls",
                    verdicts=verdicts, verdict_table="grader_verdicts")

    return record
