"""Where the last verified head of a store is kept: the user's cache, never the store.

A check that finds a store qualified leaves its head there (store.verify_scope.Checkpoint),
so the next check can start from it and re-check only what was appended. It is kept beside the
memo of store.verify_memo (same folder, same `AGM_VERIFY_CACHE` switch): a reader never writes
into the store, and a head kept in the store could be rewritten by whoever rewrote the store.
One file per store and check (`full`, `ledger`), bound to the checking code (a head verified
by other code is not reused) and to the task specifications it re-opened (an installed
environment whose specification changed since makes the next check a full one, which names
it). An unreadable, foreign or unwritable file only costs a full check.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from agentmetrology.store import verify_memo
from agentmetrology.store.qualify import Qualification
from agentmetrology.store.verify_scope import Checkpoint, checkpoint_from, checkpoint_json

# (environment, task, profile) -> the specification digest the installed environment gives
Reopened = dict[tuple[str, str, str], str | None]
CHECKS = ("full", "ledger")  # what a check of each mode may start from: `full` only from full


def _code() -> str:
    code = verify_memo.code_digest(verify_memo.CODE)
    return "" if code is None else hashlib.sha256(code).hexdigest()


def _path(root: Path, mode: str) -> Path | None:
    folder = verify_memo.memo_dir()
    return None if folder is None else verify_memo.memo_path(folder, root, f"head-{mode}")


def load(root: Path, mode: str, reopen: verify_memo.Reopen) -> tuple[Checkpoint, Reopened] | None:
    """Return the verified head a `mode` check of `root` may start from, and the specifications
    re-opened to reach it; None when there is none (or it no longer holds: check in full)."""
    code = _code()
    best: tuple[Checkpoint, Reopened] | None = None
    for kind in (("full", "ledger") if mode == "ledger" else ("full",)):
        path = _path(root, kind)
        doc = verify_memo.read_doc(path, code) if path is not None and code else None
        cp = checkpoint_from((doc or {}).get("checkpoint"))
        if doc is None or cp is None or doc.get("store") != str(root.resolve()):
            continue
        try:
            reopened = {(str(e), str(t), str(p)): s for e, t, p, s in doc.get("reopened") or []}
        except (TypeError, ValueError):
            continue
        if any(reopen(*k) != v for k, v in reopened.items()):
            continue  # an installed specification changed: the full check names it
        if best is None or cp.length > best[0].length:
            best = (cp, reopened)
    return best


def save(root: Path, q: Qualification, reopened: Reopened) -> None:
    """Keep the head of a qualified `full` or `ledger` check (nothing for any other)."""
    path = _path(root, q.mode)
    code = _code()
    cp = q.resume
    if path is None or not code or q.mode not in CHECKS or not isinstance(cp, Checkpoint):
        return
    verify_memo.write_doc(path, {
        "format": verify_memo.FORMAT, "key": code, "store": str(root.resolve()),
        "checkpoint": checkpoint_json(cp),
        "reopened": sorted([*k, v] for k, v in reopened.items())})


def describe(doc: dict[str, Any]) -> str:
    """Return how a check's JSON says it was made: full, or incremental from which head."""
    since = doc.get("incremental_since")
    if not since:
        return f"{doc.get('mode')} check, full"
    length, _, head = str(since).partition(":")
    # "full check of what was appended", not "full check, incremental": the mode names
    # what is checked (ledger, or hashes too), the head where the checked part begins
    return (f"{doc.get('mode')} check of what was appended since head {length}:{head[:12]}"
            f" ({doc.get('checked', {}).get('chain_entries', 0)} chain entries re-checked; "
            "older rows and blobs not re-read)")
