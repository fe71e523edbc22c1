"""Opening a store's ledger to check it: read-only, one snapshot, and (for the viewer) no trace.

`open_ledger_readonly` is every check's way in (store.verify, its ledger half in another
process, the ledger reader); `leaving_no_trace` makes the connections opened inside leave the
store's files as they were, as the viewer's reader does.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from agentmetrology.records.errors import UserError

LEDGER_FILE = "ledger.sqlite"


class NotAStoreError(UserError):
    """Raised when a path is not an evidence store (no readable ledger)."""


# Set by a reader that must leave the store's files as they were (the viewer, `leaving_no_trace`)
_NO_TRACE: ContextVar[bool] = ContextVar("agm_ledger_no_trace", default=False)


@contextmanager
def leaving_no_trace() -> Iterator[None]:
    """Open ledgers inside as the viewer's reader does (store.reader): immutable when no
    write-ahead log exists, so SQLite creates no `-wal`/`-shm` files beside the ledger and
    touches no timestamp (a check made then assumes, as the reader's pages do, that no writer
    starts meanwhile)."""
    token = _NO_TRACE.set(True)
    try:
        yield
    finally:
        _NO_TRACE.reset(token)


def open_ledger_readonly(root: Path) -> sqlite3.Connection:
    """Return a read-only connection to a store's ledger (NotAStoreError when there is none)."""
    path = root / LEDGER_FILE
    if not path.is_file():
        raise NotAStoreError(f"{root} is not an evidence store (no {LEDGER_FILE})")
    # SQLite reads an empty file as an empty database ("no such table: meta"): say what it is
    why = "an empty file: 0 bytes" if path.stat().st_size == 0 else None
    quiet = _NO_TRACE.get() and not path.with_name(LEDGER_FILE + "-wal").exists()
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro"
                               + ("&immutable=1" if quiet else ""), uri=True, timeout=30.0)
        # One read transaction for the connection's life: every query sees the snapshot of
        # the first (WAL: a writer goes on meanwhile). Each statement on its own saw the
        # ledger as it was then, so a check during a campaign walked the chain at one length
        # and counted rows later, and the verified head it kept made every later check of
        # the finished store say row_count_mismatch.
        conn.execute("BEGIN")
        conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise NotAStoreError(f"{root}: {LEDGER_FILE} is not a readable ledger ({why or exc}); "
                             "give another store, or restore this one from a copy") from exc
    return conn
