"""The graders' verdicts kept in the store they judged: what a judge answered is evidence.

A judge audit (`agm diagnose --judge-model`) asks a model about recorded episodes; its cost is
kept as `grader_calls` rows, and every answer as one `grader_verdicts` row (store.schema): the
audit's run id, the grader, the episode, view and call it judged, the verdict read from the
answer (None: none could be read, `reason` says why) and the answer as written, redacted like
every other text. The rows are sealed in the ledger's hash chain in one transaction, so an
edited verdict fails `agm evidence verify`, and the audit's numbers can be derived again from
the store alone, without asking the judge again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology.store.campaign_overview import rows_if_any
from agentmetrology.store.chain import seal_rows
from agentmetrology.store.store import EvidenceStore, StoreReadOnlyError

TABLE = "grader_verdicts"
_COLUMNS = ("run", "grader", "purpose", "subject", "view", "call", "verdict", "reason", "answer")


@dataclass(frozen=True, slots=True)
class GraderVerdict:
    """One answer of a grader: what it judged (subject, view, call), its verdict and why."""

    grader: str
    subject: str
    view: str
    call: int
    verdict: str | None
    reason: str
    answer: str | None


def record_grader_verdicts(store: EvidenceStore, run: str, purpose: str,
                           verdicts: Sequence[GraderVerdict]) -> int:
    """Record a grader run's verdicts, in order, sealed in one transaction; return how many
    were new (a verdict already recorded for the same run, grader, subject, view and call is
    kept as it was)."""
    if not store.writable:
        raise StoreReadOnlyError(f"the evidence store at {store.root} was opened read-only")
    red = store.redactor.text
    added: list[tuple[str, object]] = []
    with store.ledger.transaction() as c:
        for v in verdicts:
            answer = None if v.answer is None else red(v.answer)
            cur = c.execute(
                f"INSERT OR IGNORE INTO {TABLE} ({', '.join(_COLUMNS)}) VALUES "
                f"({', '.join('?' * len(_COLUMNS))})",
                (run, red(v.grader), purpose, red(v.subject), v.view, int(v.call), v.verdict,
                 red(v.reason), answer))
            if cur.rowcount == 1:
                added.append((TABLE, int(cur.lastrowid or 0)))
        if added and store.ledger.sealed:
            seal_rows(c, added)
    return len(added)


def grader_verdicts(store: EvidenceStore, run: str) -> list[GraderVerdict]:
    """Return the verdicts a grader run recorded, in the order they were recorded (none: an
    older store, or a run whose verdicts were not kept)."""
    return [GraderVerdict(**r) for r in run_verdicts(store.ledger.conn, run)]


_RUNS = (f"SELECT run, grader, purpose, COUNT(*), SUM(verdict = 'PASS'), SUM(verdict = 'FAIL'), "
         f"SUM(verdict = 'INSUFFICIENT'), SUM(verdict IS NULL) FROM {TABLE} "
         "GROUP BY run, grader, purpose ORDER BY MIN(id)")
_CALLS = ("SELECT COUNT(*), SUM(outcome != 'ok'), COALESCE(SUM(cost), 0), SUM(cost IS NULL) "
          "FROM grader_calls WHERE grader = ? AND purpose = ? "
          "AND substr(billing_id, 1, length(?) + 1) = ? || ':'")


def verdict_runs(c: sqlite3.Connection) -> list[dict[str, Any]]:
    """Return every grader run the store keeps verdicts of, in the order they were recorded:
    its verdict counts and its requests (how many, failed, cost known and unknown)."""
    out = []
    for run, grader, purpose, n, passed, failed, insufficient, none in rows_if_any(c, _RUNS):
        requests, bad, cost, unknown = c.execute(_CALLS, (grader, purpose, run, run)).fetchone()
        out.append({"run": run, "grader": grader, "purpose": purpose, "verdicts": n,
                    "PASS": passed, "FAIL": failed, "INSUFFICIENT": insufficient,
                    "none": none, "requests": requests, "failed_requests": bad or 0,
                    "cost_known": float(cost), "cost_unknown": unknown or 0})
    return out


def run_verdicts(c: sqlite3.Connection, run: str) -> list[dict[str, Any]]:
    """Return one grader run's verdicts as recorded (none: no such run, or an older store)."""
    return [dict(zip(("grader", "subject", "view", "call", "verdict", "reason", "answer"), r,
                     strict=True))
            for r in rows_if_any(c, f"SELECT grader, subject, view, call, verdict, reason, "
                                    f"answer FROM {TABLE} WHERE run = ? ORDER BY id", (run,))]
