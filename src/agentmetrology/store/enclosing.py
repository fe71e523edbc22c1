"""The one check that an output folder or file (a report, an export) lies outside every
evidence store: written there, it would mix with the evidence, and `--force` could replace it.

Its own module, outside what a check or a memo is bound to (see tests/store/test_checking_code).
"""

from __future__ import annotations

from pathlib import Path

from agentmetrology.edges.files import resolved
from agentmetrology.records.errors import UserError
from agentmetrology.store.errors import LEDGER_NAME


class InsideStoreError(UserError):
    """An output path (a report folder, an export) inside an evidence store's directory."""


def _holds_ledger(folder: Path) -> bool:
    """Return True when `folder` holds a ledger file (one that cannot be looked at: False)."""
    try:
        return (folder / LEDGER_NAME).is_file()
    except OSError:
        return False


def enclosing_store(path: Path) -> Path | None:
    """Return the store directory `path` is (or lies in, at any depth; links followed), or None.

    A store is a directory holding ledger.sqlite; `path` need not exist yet."""
    full = resolved(path)
    return next((d for d in (full, *full.parents) if _holds_ledger(d)), None)


def refuse_inside_store(out: Path, what: str) -> None:
    """Raise InsideStoreError when `out` is, or lies inside, an evidence store: reports and
    exports written there would mix with the evidence (and `--force` could replace it).

    The store is named as the user spelled it when `out` passes through it (`S` for `S/rep`)."""
    store = enclosing_store(out)
    if store is None:
        return
    if resolved(out) == store:
        raise InsideStoreError(f"{out} is an evidence store; write the {what} outside it")
    written = [p for p in reversed(out.parents) if p != Path(".")]  # `.` is not the user's
    spelled = next((p for p in written if resolved(p) == store), store)
    raise InsideStoreError(f"{out} is inside the evidence store {spelled}; write the {what} "
                           "outside it")
