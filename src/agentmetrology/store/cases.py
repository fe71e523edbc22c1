"""The case ledger: failure-derived cases, their transitions and consumption receipts.

Three append-only tables (see store.schema): `cases` (one immutable row per case: its source
record), `case_events` (one row per transition; a case's state is its latest event's) and
`case_uses` (one consumption receipt per use, naming the blobs of the episode it recorded).
Every write is one transaction that re-checks the state it expects first, so a transition out
of order changes nothing, and seals its rows into the ledger's hash chain (store.chain) so that
`agm evidence verify` catches an edited case row. Which step a writer may record from which
state is one table (store.case_steps), which `agm evidence verify` holds every case against
too (store.verify_cases); what a step requires beyond its state lives in assess.cases.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology.records.canonical import canonical_json, decode_json
from agentmetrology.records.errors import UserError
from agentmetrology.store.case_steps import STEPS, USABLE
from agentmetrology.store.chain import seal_rows
from agentmetrology.store.ledger import now
from agentmetrology.store.store import EvidenceStore, StoreReadOnlyError


class CaseStateError(UserError):
    """A case that does not exist, exists already, or is not in the state a step needs."""


@dataclass(frozen=True, slots=True)
class CaseRecord:
    """One case as the ledger holds it: its identity, source record, state and history."""

    id: str
    environment: str
    task: str
    seed: int
    condition: str
    level: str
    profile: str
    source: dict[str, Any]
    source_digest: str
    proposed_at: str
    events: tuple[dict[str, Any], ...]
    uses: tuple[dict[str, Any], ...]

    @property
    def state(self) -> str:
        """Return the case's current state (its latest event's)."""
        return str(self.events[-1]["state"])

    def to_json(self) -> dict[str, Any]:
        """Return plain JSON data (source, events and receipts included)."""
        return {"id": self.id, "state": self.state, "environment": self.environment,
                "task": self.task, "seed": self.seed, "condition": self.condition,
                "level": self.level, "profile": self.profile, "source": self.source,
                "source_digest": self.source_digest, "proposed_at": self.proposed_at,
                "events": list(self.events), "uses": list(self.uses)}


@dataclass(frozen=True, slots=True)
class Use:
    """What a consumption receipt records about one use of a case."""

    agent: str
    level: str
    episode_digest: str
    submission_digest: str | None
    status: str
    result: dict[str, Any]


def _text(value: Any) -> str:
    return canonical_json(value).decode("utf-8")


def check_writable(store: EvidenceStore) -> None:
    """Raise (one line) unless the store is open for writing and its ledger is sealed."""
    if not store.writable:
        raise StoreReadOnlyError(f"the evidence store at {store.root} was opened read-only")
    if not store.ledger.sealed:  # a case row no chain covers could be edited unnoticed
        raise CaseStateError(f"{store.root}: unsealed ledger (older layout): cases need the "
                             f"hash chain; run `agm evidence seal {store.root}` first (nothing "
                             "was changed)")


def _seal(store: EvidenceStore, c: sqlite3.Connection, rows: list[tuple[str, object]]) -> None:
    if store.ledger.sealed:
        seal_rows(c, rows)


def _state(c: sqlite3.Connection, case_id: str) -> str | None:
    row = c.execute("SELECT state FROM case_events WHERE case_id=? ORDER BY id DESC LIMIT 1",
                    (case_id,)).fetchone()
    return None if row is None else str(row[0])


def _expect(c: sqlite3.Connection, case_id: str, allowed: Sequence[str], step: str) -> str:
    state = _state(c, case_id)
    if state is None:
        raise CaseStateError(f"no case {case_id!r} in this store (see `agm cases list`)")
    if state not in allowed:
        raise CaseStateError(f"case {case_id} is {state}: {step} needs a case that is "
                             f"{' or '.join(allowed)} (nothing was changed)")
    return state


def _event(c: sqlite3.Connection, case_id: str, state: str, action: str,
           detail: dict[str, Any]) -> int:
    cur = c.execute("INSERT INTO case_events (case_id, state, action, detail, at) "
                    "VALUES (?, ?, ?, ?, ?)", (case_id, state, action, _text(detail), now()))
    return int(cur.lastrowid or 0)


def insert_case(store: EvidenceStore, case_id: str, fields: dict[str, Any],
                source: dict[str, Any]) -> None:
    """Record a new case (state proposed) with its source record, in one transaction."""
    check_writable(store)
    text = _text(source)
    with store.ledger.transaction() as c:
        if _state(c, case_id) is not None:
            raise CaseStateError(f"case {case_id} is already in this store (the same source "
                                 "record is proposed once; nothing was changed)")
        c.execute("INSERT INTO cases (id, environment, task, seed, condition, level, profile, "
                  "source, source_digest, proposed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                  (case_id, fields["environment"], fields["task"], fields["seed"],
                   fields["condition"], fields["level"], fields["profile"], text,
                   hashlib.sha256(text.encode("utf-8")).hexdigest(), now()))
        ev = _event(c, case_id, "proposed", "propose", {})
        _seal(store, c, [("cases", case_id), ("case_events", ev)])


def check_state(store: EvidenceStore, case_id: str, allowed: Sequence[str], step: str) -> str:
    """Return the case's state, or raise CaseStateError (one line) if `step` may not run."""
    return _expect(store.ledger.conn, case_id, allowed, step)


def transition(store: EvidenceStore, case_id: str, action: str,
               detail: dict[str, Any]) -> None:
    """Append the event of `action` (a step of store.case_steps.STEPS) if the case is in a
    state it may start from (else nothing changes)."""
    check_writable(store)
    allowed, state = STEPS[action]
    with store.ledger.transaction() as c:
        _expect(c, case_id, allowed, action)
        ev = _event(c, case_id, state, action, detail)
        _seal(store, c, [("case_events", ev)])


def record_use(store: EvidenceStore, case_id: str, use: Use) -> int:
    """Record a consumption receipt (and the first use's `active` transition); return its id."""
    check_writable(store)
    with store.ledger.transaction() as c:
        state = _expect(c, case_id, USABLE, "use")
        cur = c.execute("INSERT INTO case_uses (case_id, agent, level, episode_digest, "
                        "submission_digest, status, result, used_at) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (case_id, use.agent, use.level, use.episode_digest,
                         use.submission_digest, use.status, _text(use.result), now()))
        use_id = int(cur.lastrowid or 0)
        rows: list[tuple[str, object]] = [("case_uses", use_id)]
        if state in STEPS["first use"][0]:
            rows.append(("case_events", _event(c, case_id, STEPS["first use"][1], "first use",
                                               {"use": use_id})))
        _seal(store, c, rows)
    return use_id


def _dicts(cur: sqlite3.Cursor) -> list[dict[str, Any]]:
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur]


def get_case(store: EvidenceStore, case_id: str) -> CaseRecord | None:
    """Return one case with its events and receipts, or None."""
    c = store.ledger.conn
    rows = _dicts(c.execute("SELECT * FROM cases WHERE id=?", (case_id,)))
    if not rows:
        return None
    row = rows[0]
    events = _dicts(c.execute("SELECT id, state, action, detail, at FROM case_events "
                              "WHERE case_id=? ORDER BY id", (case_id,)))
    for e in events:
        e["detail"] = json.loads(e["detail"])
    uses = _dicts(c.execute("SELECT id, agent, level, episode_digest, submission_digest, "
                            "status, result, used_at FROM case_uses WHERE case_id=? "
                            "ORDER BY id", (case_id,)))
    for u in uses:
        u["result"] = decode_json(u["result"])
    return CaseRecord(row["id"], row["environment"], row["task"], int(row["seed"]),
                      row["condition"], row["level"], row["profile"],
                      decode_json(row["source"]), row["source_digest"], row["proposed_at"],
                      tuple(events), tuple(uses))


def list_cases(store: EvidenceStore) -> list[CaseRecord]:
    """Return every case of the store, oldest first."""
    ids = [r[0] for r in store.ledger.conn.execute(
        "SELECT id FROM cases ORDER BY proposed_at, id")]
    return [c for c in (get_case(store, i) for i in ids) if c is not None]
