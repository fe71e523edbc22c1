"""Open an evidence store for a command: one error line naming the store when it cannot be."""

from __future__ import annotations

from pathlib import Path

from agentmetrology.store.errors import StoreError
from agentmetrology.store.ledger_records import LedgerError
from agentmetrology.store.store import EvidenceStore, StoreNotFoundError


def open_store(path: Path, *, create: bool = False, readonly: bool = False) -> EvidenceStore:
    """Open the store at `path` (made if `create`; read-only if `readonly`); StoreError
    "cannot open the evidence store at PATH: why" when it cannot be opened. A missing store keeps
    its own UserError, which says how to fix it."""
    try:
        if readonly:
            return EvidenceStore.open_readonly(path)
        return EvidenceStore.open(path, create=create)
    except StoreNotFoundError:
        raise
    except (OSError, LedgerError) as exc:
        raise StoreError(f"cannot open the evidence store at {path}: {exc}") from None
