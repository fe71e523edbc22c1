"""Qualification of a store for reporting: the store's checks plus the re-opened specification.

The store layer checks bytes and sealed bindings; re-opening a task's specification needs the
installed environments, which live above it, so the callback is built here and handed down.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext, suppress
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentmetrology.envs.registry import environment_or_default, task_spec_digest
from agentmetrology.records.errors import UserError
from agentmetrology.store import verify_checkpoint, verify_memo
from agentmetrology.store.blob_reads import BlobReads
from agentmetrology.store.verify import store_head, verify_store
from agentmetrology.store.verify_ahead import LedgerAhead, LedgerHalf, worth_splitting
from agentmetrology.store.verify_checkpoint import Reopened


@lru_cache(maxsize=4096)
def reopened_spec_digest(environment: str, task: str, profile: str) -> str | None:
    """Return a task's specification digest as the installed environment gives it now.

    None when the environment or the task is not installed here (nothing to compare with).
    """
    try:
        return task_spec_digest(task, profile, environment_or_default(environment))
    except (KeyError, ValueError, TypeError):
        return None


Notice = Callable[[int], None]  # told a whole check's chain length before it starts


def qualify_store(path: Path, mode: str = "full", expect: tuple[int, str] | None = None,
                  incremental: bool = False, reads: BlobReads | None = None,
                  ledger: LedgerHalf | None = None,
                  notice: Notice | None = None) -> dict[str, Any]:
    """Return the JSON qualification of the store at `path` for a report (store by name).

    The cheap `ledger` check is memoised while nothing it read has changed (store.verify_memo);
    the full and hash-only checks always run. `expect` pins a (length, head) the chain must
    still have (full and hash-only). `incremental` starts a `full` or `ledger` check from the
    head verified last (store.verify_checkpoint): a `full` one whenever there is one, a
    `ledger` one only when the chain grew since (a ledger that changed without growing is
    checked in full). `reads`: what an import of the store found in the blobs it read in this
    process (store.blob_reads): a full check takes those verdicts instead of reading the blobs
    again, and still covers every byte. `ledger`: the ledger half of a full check of `path`, run
    meanwhile in another process (store.verify_ahead), taken in its place. `notice(chain
    length)` is called before a `full` or `ledger` check of the whole store runs (not one from
    a verified head, nor a memoised answer): a command tells its user why this one takes
    longer. Raises store.verify.NotAStoreError when `path` holds no readable ledger.
    """
    root = Path(path)
    if mode == "ledger":
        doc = _ledger_check(root, incremental, notice)
    elif mode == "full":
        doc = _checked(root, mode, expect, incremental, reads=reads, ledger=ledger,
                       notice=notice)[0]
    else:
        doc = verify_store(root, mode=mode, reopen=reopened_spec_digest, expect=expect).to_json()
    doc["store"] = root.name  # reports are byte-identical wherever the store lives
    return doc


def _checked(root: Path, mode: str, expect: tuple[int, str] | None, incremental: bool,
             grown_only: bool = False, reads: BlobReads | None = None,
             ledger: LedgerHalf | None = None,
             notice: Notice | None = None) -> tuple[dict[str, Any], Reopened]:
    """Run a `full` or `ledger` check (from the verified head if `incremental`), keep its head
    when it qualifies; return its JSON and the specifications it re-opened."""
    found = verify_checkpoint.load(root, mode, reopened_spec_digest)
    start = found if incremental else None
    if start is not None and grown_only and store_head(root)[0] <= start[0].length:
        start = None  # changed without growing: only an edit does that; check in full
    reopened: Reopened = dict(start[1]) if start is not None else {}

    def reopen(environment: str, task: str, profile: str) -> str | None:
        sealed = reopened_spec_digest(environment, task, profile)
        reopened[(environment, task, profile)] = sealed
        return sealed

    if start is not None or mode != "full" or expect is not None:
        ledger = None  # (verify_store takes the ledger half of a whole full check alone)
    # A whole check of a large store runs its ledger half on the other core (store.
    # verify_split); not in an audit, which runs it beside the import itself (or chose not to)
    split = (start is None and expect is None and ledger is None and reads is None
             and mode in ("full", "ledger") and worth_splitting(root))
    if start is None and notice is not None:
        with suppress(UserError):  # no chain to be read: the check says why, at once
            notice(store_head(root)[0])
    with LedgerAhead(root, reopen, mode, episodes=False) if split else nullcontext() as ahead:
        q = verify_store(root, mode=mode, reopen=reopen, expect=expect,
                         since=None if start is None else start[0], reads=reads,
                         ledger=ledger, ahead=ahead, verified=None if found is None else found[0])
    for half in (ledger, None if ahead is None else ahead.taken):
        if half is not None:  # the specifications its binding checks re-opened, as asked
            reopened.update(half.bindings.reopened)
    verify_checkpoint.save(root, q, reopened)
    return q.to_json(), reopened


def _ledger_check(root: Path, incremental: bool = False,
                  notice: Notice | None = None) -> dict[str, Any]:
    """Return the ledger check's JSON: memoised, or run (and memoised if the store held still)."""
    key = verify_memo.fingerprint(root)
    hit = verify_memo.lookup(root, key, reopened_spec_digest)
    if hit is not None and (incremental or "incremental_since" not in hit):
        return dict(hit)  # a full check asked for is never answered by an incremental one
    ledger = verify_memo.ledger_lines(root)
    doc, reopened = _checked(root, "ledger", None, incremental, grown_only=True, notice=notice)
    # Kept under the fingerprint taken before the check: a file changed while it ran has moved
    # on (ctime never goes back), so that key is never matched again. Only the ledger is
    # compared again (cheap): a write meanwhile keeps nothing.
    if verify_memo.ledger_lines(root) == ledger:
        verify_memo.store(root, key, [(*k, v) for k, v in reopened.items()], doc)
    return doc
