"""Qualification of a store for reporting: the store's checks plus the re-opened specification.

The store layer checks bytes and sealed bindings; re-opening a task's specification needs the
installed environments, which live above it, so the callback is built here and handed down.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from agentmetrology.run.campaign.plan import task_spec_digest
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


def qualify_store(path: Path, mode: str = "full") -> dict[str, Any]:
    """Return the JSON qualification of the store at `path` for a report (store by name).

    Raises store.verify.NotAStoreError when `path` holds no readable ledger.
    """
    q = verify_store(path, mode=mode, reopen=reopened_spec_digest)
    doc = q.to_json()
    doc["store"] = Path(path).name  # reports are byte-identical wherever the store lives
    return doc
