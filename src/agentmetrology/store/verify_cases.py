"""The store check of the case lifecycle: every case's recorded steps in the order its writers
give them (store.case_steps).

A case's state is its latest event's, and `agm cases` refuses a step out of order; but an event
inserted by hand and sealed with one more chain entry (and head log line) hashes like any other:
before this check, a case moved from proposed to admitted with no calibration, then used, and the
store qualified. Now each case's events, in the order readers take them (by id), must each be a
step its writers record from the state before it (`case_out_of_order`, naming the case and, for
a move forward, the states it skipped), every use must be sealed while the case was admitted or
active, and the first use's event must follow a use. A full check reads every case; an
incremental one the cases its appended entries touch (all their events and uses: a few rows).
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from agentmetrology.store.case_steps import STEPS, USABLE, skipped
from agentmetrology.store.verify_lifecycle import Finding
from agentmetrology.store.verify_scope import refs_param

KIND = "case_out_of_order"
Rows = defaultdict[str, list[tuple[Any, ...]]]  # case -> its rows (id, chain seq, ...)
_COMMANDS = {"calibrated": "agm cases calibrate", "admitted": "agm cases admit",
             "active": "agm cases use"}


def case_findings(c: sqlite3.Connection,
                  touched: dict[str, dict[str, str | None]] | None) -> list[Finding]:
    """Return a finding for every recorded case step its writers never make: every case, or
    (`touched`: the rows an incremental check re-checks) the cases those rows belong to."""
    if c.execute("SELECT COUNT(*) FROM sqlite_master WHERE type IN ('table', 'view') AND "
                 "name IN ('case_events', 'case_uses')").fetchone()[0] != 2:
        return []  # an older store never opened since the tables were added: no case
    cases = None if touched is None else _touched_cases(c, touched)
    if cases is not None and not cases:
        return []
    where = "" if cases is None else " WHERE r.case_id IN (SELECT value FROM json_each(?))"
    params: tuple[str, ...] = () if cases is None else (refs_param(cases),)
    events: Rows = defaultdict(list)
    uses: Rows = defaultdict(list)
    for table, into in (("case_events", events), ("case_uses", uses)):
        extra = ", r.state, r.action" if table == "case_events" else ""
        for row in c.execute(
                f"SELECT r.case_id, r.id, (SELECT MIN(seq) FROM chain WHERE tbl = '{table}' "
                f"AND ref = CAST(r.id AS TEXT)){extra} FROM {table} r{where} ORDER BY r.id",
                params):
            into[str(row[0])].append(row[1:])
    out: list[Finding] = []
    for case in sorted(set(events) | set(uses)):
        out += _case(case, events[case], uses[case])
    return out


def _touched_cases(c: sqlite3.Connection, touched: dict[str, dict[str, str | None]]) -> set[str]:
    """Return the cases the touched rows of the three case tables belong to."""
    out = {str(ref) for ref in touched.get("cases", {})}
    for table in ("case_events", "case_uses"):
        refs = touched.get(table, {})
        if refs:
            out.update(str(r[0]) for r in c.execute(
                f"SELECT case_id FROM {table} WHERE id IN (SELECT value FROM json_each(?))",
                (refs_param(refs),)))
    return out


def _case(case: str, events: Iterable[tuple[Any, ...]],
          uses: Iterable[tuple[Any, ...]]) -> list[Finding]:
    """Return the findings of one case: its events by id, its uses against the states its
    events had sealed before each (chain order)."""
    out: list[Finding] = []
    before: str | None = None
    sealed: list[tuple[int, str]] = []  # (chain seq, state recorded) of each sealed event
    used = sorted(int(seq) for _, seq in uses if seq is not None)
    for ev, seq, state, action in events:
        why = _step(before, str(action), str(state))
        if why is None and action == "first use" and seq is not None and \
                not any(u < seq for u in used):
            why = "the case became active with no use sealed before it (its first use does that)"
        if why is not None:
            out.append((KIND, f"case_events id={ev} (case {case})", why))
        before = str(state)  # readers take the state recorded, whatever came before
        if seq is not None:
            sealed.append((int(seq), before))
    for use, seq in uses:
        if seq is None:
            continue  # in no chain entry: `row_not_sealed` names it
        now = next((s for q, s in reversed(sealed) if q < seq), None)
        if now not in USABLE:
            out.append((KIND, f"case_uses id={use} (case {case})",
                        f"a use sealed while the case was {now or 'not yet proposed'}: a use "
                        f"needs a case that is {' or '.join(USABLE)}"))
    return out


def _step(before: str | None, action: str, state: str) -> str | None:
    """Return why recording `state` by `action` after `before` is no step of the writers
    (None: it is one)."""
    step = STEPS.get(action)
    if step is None:
        return f"{action!r} is no step of the case lifecycle (its steps: {', '.join(STEPS)})"
    allowed, records = step
    if state != records:
        return f"{action!r} records the state {records}, not {state}"
    if before is None or action == "propose":
        return None if (before is None) == (action == "propose") else (
            "the case's first event is not its proposal" if before is None else
            f"proposed again while {before}: a case is proposed once")
    if before in allowed:
        return None
    gap = skipped(before, state)
    if gap:
        steps = ", ".join(f"{s} (`{_COMMANDS[s]}`)" for s in gap)
        return (f"the case went from {before} to {state}, skipping {steps}: {action} needs a "
                f"case that is {' or '.join(allowed)}")
    return f"{action} while the case was {before}: it needs a case that is " + \
        " or ".join(allowed)
