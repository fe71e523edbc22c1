"""The store's typed read error: a ledger that SQLite cannot read, named for the user.

SQLite's own exceptions never leave the store: every caller outside it sees `StoreError`, a
`UserError`, so the CLI's one handler prints it as one line (exit 2) and no command needs to
know that the ledger is SQLite.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agentmetrology.records.errors import UserError

LEDGER_NAME = "ledger.sqlite"


class StoreError(UserError):
    """Raised when a store's ledger cannot be opened or read (corrupt, locked, not a ledger)."""

    def __init__(self, message: str, root: Path | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.root = root
        self.detail = detail  # what SQLite said, for callers that word the error themselves


def unreadable(root: Path, exc: Exception) -> StoreError:
    """Return the StoreError of a store whose ledger SQLite could not read."""
    return StoreError(f"{root}: {LEDGER_NAME} is not a readable ledger ({exc}); give another "
                      "store, or restore this one from a copy", root, str(exc))


def unwritable(root: Path, exc: Exception) -> StoreError:
    """Return the StoreError of a store whose ledger SQLite could not change."""
    return StoreError(f"{root}: {LEDGER_NAME} cannot be written ({exc}); check the disk's free "
                      "space and the file's permissions", root, str(exc))


@contextmanager
def reading(root: Path, *, write: bool = False) -> Iterator[None]:
    """Run the block, turning a SQLite error into the StoreError of the store at `root`."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise (unwritable if write else unreadable)(root, exc) from exc
