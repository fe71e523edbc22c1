"""A memo of the cheap (`ledger`) store check, reused only while nothing it read has changed.

The ledger check reads every ledger row and every episode blob, which costs seconds on a large
store, and `campaign status` runs it every time. Its result is kept in the user's cache (never
in the store: a reader does not write there) under a fingerprint of everything it read:
- the ledger file and its write-ahead log: device, inode, size, mtime and ctime (a missing or
  empty log counts as empty). The kernel sets ctime on every change of a file and it cannot be
  set back (`touch -d` restores mtime, not ctime), so an edit in place always misses;
- every blob file: name, inode, size, mtime and ctime (an edited, added or removed blob misses);
- the checking code (the package version and the bytes of the verification modules);
- the task specification digests it re-opened, compared again on every use.
A miss runs the check and stores its result when nothing changed while it ran. The full check
(`agm evidence verify`, archive audits) never uses the memo. `AGM_VERIFY_CACHE=DIR` moves the
memo; `AGM_VERIFY_CACHE=` (empty) turns it off. An unwritable cache only costs the time.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentmetrology import __version__
from agentmetrology.store.verify import LEDGER_FILE  # the file the check reads

MEMO_ENV = "AGM_VERIFY_CACHE"
FORMAT = 1
_CODE = ("verify.py", "verify_episodes.py", "chain.py", "qualify.py", "verify_memo.py")
Reopen = Callable[[str, str, str], str | None]


def memo_dir() -> Path | None:
    """Return the memo directory, or None when the memo is turned off."""
    env = os.environ.get(MEMO_ENV)
    if env is not None:
        return Path(env) if env else None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agentmetrology" / "verify"


def _stat_line(name: str, st: os.stat_result) -> str:
    return f"{name}|{st.st_dev}|{st.st_ino}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}\n"


def fingerprint(root: Path) -> str:
    """Return the digest of everything the ledger check reads, as file metadata (see above).

    Empty when the checking code's files cannot be read (then nothing is memoised).
    """
    h = hashlib.sha256(f"{FORMAT}|{__version__}\n".encode())
    here = Path(__file__).parent
    try:
        for name in _CODE:
            h.update(hashlib.sha256((here / name).read_bytes()).digest())
    except OSError:
        return ""  # the checking code cannot be identified: no memo
    for name in (LEDGER_FILE, LEDGER_FILE + "-wal"):
        try:
            st = os.stat(root / name)
        except FileNotFoundError:
            st = None
        # A reader creates an empty log where there was none: both hold nothing.
        if st is None or (name.endswith("-wal") and st.st_size == 0):
            h.update(f"{name}|empty\n".encode())
        else:
            h.update(_stat_line(name, st).encode())
    base = root / "blobs"
    try:
        subdirs = sorted((e.name, e.path) for e in os.scandir(base) if e.is_dir())
    except FileNotFoundError:
        subdirs = []
    for sub, path in subdirs:
        with os.scandir(path) as entries:
            lines = sorted(_stat_line(sub + e.name, e.stat()) for e in entries)
        h.update("".join(lines).encode())
    return h.hexdigest()


def _memo_path(folder: Path, root: Path) -> Path:
    return folder / (hashlib.sha256(str(root.resolve()).encode()).hexdigest() + ".json")


def lookup(root: Path, key: str, reopen: Reopen | None) -> dict[str, Any] | None:
    """Return the memoised check of `root` for fingerprint `key`, or None (a miss)."""
    folder = memo_dir()
    if folder is None or not key:
        return None
    try:
        doc = json.loads(_memo_path(folder, root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("key") != key:
        return None
    for env, task, profile, sealed in doc.get("reopened") or []:
        if reopen is None or reopen(env, task, profile) != sealed:
            return None  # the installed environments changed: check again
    result = doc.get("qualification")
    return result if isinstance(result, dict) else None


def store(root: Path, key: str, reopened: list[tuple[str, str, str, str | None]],
          qualification: dict[str, Any]) -> None:
    """Keep a check's result for fingerprint `key` (silently skipped if the cache is unwritable)."""
    folder = memo_dir()
    if folder is None or not key:
        return
    path = _memo_path(folder, root)
    doc = {"format": FORMAT, "store": str(root.resolve()), "key": key,
           "reopened": [list(r) for r in reopened], "qualification": qualification}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(doc, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        return
