"""What an incremental store check re-checks: the rows the chain touched after a verified head.

A check that found a store qualified leaves a checkpoint (store.verify_checkpoint): the chain
length and head it verified and how many rows each table held then. An incremental check
starts there: the stored head at that length must still be the checkpoint's (else the chain
was rewritten and the caller checks in full); the chain is walked from that head over the
entries appended since; every row those entries touch is re-hashed and re-checked (bindings,
texts, blobs it references, episodes, assessments); each table's row count must be the one
the checkpoint and the appended entries give (a row added or removed outside the ledger's API
changes it); the head log and a pinned head are held against the chain as in the full check.
What it does not re-read is what was verified before the checkpoint: an old row or an old
blob edited in place since is caught by the full check only, which stays available (and is
what `agm evidence verify` runs unless told `--incremental`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agentmetrology.store.chain import TABLES


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A verified head: its chain length and head, and the rows each table held there."""

    length: int
    head: str
    rows: dict[str, int] = field(default_factory=dict)
    mode: str = "full"  # the check that found the store qualified there: full | ledger
    log_size: int = 0  # the head log's whole lines then, and their sha256 (store.head_log)
    log_digest: str = ""

    def text(self) -> str:
        """Return the head as `LENGTH:HEAD` (the form `agm evidence head` prints)."""
        return f"{self.length}:{self.head}"


def stored_head(c: sqlite3.Connection, length: int) -> str | None:
    """Return the head the chain stores at `length` (None when the chain is shorter)."""
    if length == 0:
        return "0" * 64
    row = c.execute("SELECT head FROM chain WHERE seq=?", (length,)).fetchone()
    return None if row is None else str(row[0])


def stored_heads(c: sqlite3.Connection, lengths: Iterable[int]) -> dict[int, str]:
    """Return the stored head at each of `lengths` that the chain has (one query)."""
    wanted = json.dumps(sorted(set(lengths)))
    return {int(s): str(h) for s, h in c.execute(
        "SELECT seq, head FROM chain WHERE seq IN (SELECT value FROM json_each(?))", (wanted,))}


def refs_param(refs: Iterable[str]) -> str:
    """Return the refs as the JSON array an `IN (SELECT value FROM json_each(?))` reads."""
    return json.dumps(sorted(refs))


def row_counts(c: sqlite3.Connection, tables: Iterable[str]) -> dict[str, int]:
    """Return the number of rows of each of `tables` (a table the ledger lacks holds 0)."""
    out = {}
    for table in tables:
        try:
            out[table] = int(c.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
        except sqlite3.OperationalError:  # an older ledger without the table
            out[table] = 0
    return out


def expected_counts(c: sqlite3.Connection, since: Checkpoint,
                    touched: dict[str, dict[str, str | None]]) -> dict[str, int]:
    """Return the rows each table must hold now: the checkpoint's, plus the appended entries'.

    A touched row counts as before when it was live at the checkpoint (its latest entry up to
    there sealed a digest), which one read of the chain's prefix tells for all of them.
    """
    before: dict[tuple[str, str], bool] = {}
    for tbl, per in touched.items():
        if not per:
            continue
        # Per table: with the writer's index on (tbl, ref, seq) each ref is a lookup, not a
        # read of the chain's whole prefix (a store only ever read falls back to that read).
        for ref, d in c.execute(
                "SELECT ref, row_digest FROM chain WHERE tbl = ? AND ref IN "
                "(SELECT value FROM json_each(?)) AND seq <= ? ORDER BY seq",
                (tbl, refs_param(per), since.length)):
            before[(tbl, ref)] = d is not None
    out = {}
    for table in TABLES:
        per = touched.get(table, {})
        was = sum(before.get((table, ref), False) for ref in per)
        now = sum(d is not None for d in per.values())
        out[table] = since.rows.get(table, 0) - was + now
    return out


def checkpoint_json(cp: Checkpoint) -> dict[str, Any]:
    """Return a checkpoint as plain JSON data."""
    return {"length": cp.length, "head": cp.head, "rows": dict(cp.rows), "mode": cp.mode,
            "log_size": cp.log_size, "log_digest": cp.log_digest}


def checkpoint_from(doc: Any) -> Checkpoint | None:
    """Return the checkpoint a JSON document holds, None when it is not of this shape."""
    try:
        cp = Checkpoint(int(doc["length"]), str(doc["head"]),
                        {str(k): int(v) for k, v in doc["rows"].items()}, str(doc["mode"]),
                        int(doc.get("log_size", 0)), str(doc.get("log_digest", "")))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return cp if len(cp.head) == 64 and cp.length >= 0 else None
