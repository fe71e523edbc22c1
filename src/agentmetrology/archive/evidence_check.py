"""Qualification of a store for reporting: the store's checks plus the re-opened specification.

The store layer checks bytes and sealed bindings; re-opening a task's specification needs the
installed environments, which live above it, so the callback is built here and handed down.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from agentmetrology.run.campaign.plan import task_spec_digest
from agentmetrology.store import verify_memo
from agentmetrology.store.verify import verify_store


@lru_cache(maxsize=4096)
def reopened_spec_digest(environment: str, task: str, profile: str) -> str | None:
    """Return a task's specification digest as the installed environment gives it now.

    None when the environment or the task is not installed here (nothing to compare with).
    """
    try:
        return task_spec_digest(task, profile, environment)
    except (KeyError, ValueError, TypeError):
        return None


def qualify_store(path: Path, mode: str = "full",
                  expect: tuple[int, str] | None = None) -> dict[str, Any]:
    """Return the JSON qualification of the store at `path` for a report (store by name).

    The cheap `ledger` check is memoised while nothing it read has changed (store.verify_memo);
    the full and hash-only checks always run. `expect` pins a (length, head) the chain must
    still have (full and hash-only). Raises store.verify.NotAStoreError when `path` holds no
    readable ledger.
    """
    root = Path(path)
    doc = _ledger_check(root) if mode == "ledger" else \
        verify_store(root, mode=mode, reopen=reopened_spec_digest, expect=expect).to_json()
    doc["store"] = root.name  # reports are byte-identical wherever the store lives
    return doc


def _ledger_check(root: Path) -> dict[str, Any]:
    """Return the ledger check's JSON: memoised, or run (and memoised if the store held still)."""
    key = verify_memo.fingerprint(root)
    hit = verify_memo.lookup(root, key, reopened_spec_digest)
    if hit is not None:
        return dict(hit)
    reopened: dict[tuple[str, str, str], str | None] = {}

    def reopen(environment: str, task: str, profile: str) -> str | None:
        sealed = reopened_spec_digest(environment, task, profile)
        reopened[(environment, task, profile)] = sealed
        return sealed

    doc = verify_store(root, mode="ledger", reopen=reopen).to_json()
    if verify_memo.fingerprint(root) == key:  # nothing was written while the check ran
        verify_memo.store(root, key, [(*k, v) for k, v in reopened.items()], doc)
    return doc
