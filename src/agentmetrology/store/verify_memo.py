"""A memo of the cheap (`ledger`) store check, reused only while nothing it read has changed.

The ledger check reads every ledger row and every episode blob, which costs seconds on a large
store, and `campaign status` runs it every time. Its result is kept in the user's cache (never
in the store: a reader does not write there) under a fingerprint of everything it read:
- the ledger file and its write-ahead log: device, inode, size, mtime and ctime (a missing or
  empty log counts as empty). The kernel sets ctime on every change of a file and it cannot be
  set back (`touch -d` restores mtime, not ctime), so an edit in place always misses;
- the head log (store.head_log): device, inode, size, mtime and ctime, or its absence;
- the blob folders (`blobs/` and each `blobs/ab/`): name, device, inode, mtime and ctime, and
  whether it is a symbolic link. A blob added, removed, renamed, or replaced by a rename (the
  way the store writes, and how an editor saves) changes its folder's mtime and ctime: a miss.
  One stat per folder (257 at most), not one per blob file: on a store of a million episodes
  one stat per blob cost seconds, every status. What the memo does not see: bytes written into
  an existing blob file in place (blob files are read-only: that takes a `chmod` first, or
  root). `agm evidence verify` re-hashes every blob and sees it, and so does every check that
  does not use the memo (`campaign status --full-check`, a miss for any other reason), as far
  as the ledger check reads blobs (docs/evidence.md);
- the checking code (the package version and the bytes of the verification modules);
- the task specification digests it re-opened, compared again on every use.
A miss runs the check and stores its result under the fingerprint taken before it, when the
ledger did not change while it ran (a blob changed meanwhile has moved its ctime on, so that
fingerprint is never matched again). The full check
(`agm evidence verify`, archive audits) never uses the memo. `AGM_VERIFY_CACHE=DIR` moves the
memo; `AGM_VERIFY_CACHE=` (empty, or `0`, `off`: edges.cache_dir) turns it off. An
unwritable cache only costs the time. The folder, the ledger's metadata lines and the file
format are shared with store/status_memo.py.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agentmetrology import __version__
from agentmetrology.edges.cache_dir import cache_dir
from agentmetrology.store.head_log import HEAD_LOG_FILE
from agentmetrology.store.verify import LEDGER_FILE  # the file the check reads

MEMO_ENV = "AGM_VERIFY_CACHE"
FORMAT = 3  # 3: blob folders' metadata, not one stat per blob file
# Every module of this package the check imports, directly or not (a test holds the list to
# the imports): a change to any of them may change what a check finds.
_CODE = ("verify.py", "verify_episodes.py", "episode_head.py", "chain.py", "qualify.py",
         "verify_memo.py", "verify_blobs.py", "verify_heads.py", "verify_schema.py",
         "verify_lifecycle.py", "head_log.py", "evidence.py", "schema.py", "verify_scope.py",
         "verify_checkpoint.py", "verify_bindings.py", "verify_ahead.py", "verify_split.py",
         "verify_texts.py", "verify_transcripts.py", "verify_values.py", "verify_json.py",
         "verify_plan.py", "blob_reads.py", "blobs.py", "forked.py", "ledger.py",
         "ledger_records.py", "paths.py", "redact.py", "supersede.py", "transcripts.py",
         "errors.py", "verify_cases.py", "case_steps.py", "verify_billing.py",
         "ledger_open.py", "verify_attempts.py")
CODE = _CODE  # the checking code, which a verified head (store.verify_checkpoint) is bound to
Reopen = Callable[[str, str, str], str | None]


def memo_dir() -> Path | None:
    """Return the memo directory, or None when the memo is turned off."""
    return cache_dir(MEMO_ENV, "verify")


def _stat_line(name: str, st: os.stat_result) -> str:
    return f"{name}|{st.st_dev}|{st.st_ino}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}\n"


@functools.lru_cache(maxsize=16)
def code_digest(names: tuple[str, ...]) -> bytes | None:
    """Return the digest of these modules of this folder, None when one cannot be read."""
    # Once per process: the code running is the code imported when it started, whatever
    # happens to the files later (a viewer's pages would otherwise re-read 40 files each).
    here = Path(__file__).parent
    h = hashlib.sha256(f"{FORMAT}|{__version__}\n".encode())
    try:
        for name in names:
            h.update(hashlib.sha256((here / name).read_bytes()).digest())
    except OSError:
        return None
    return h.digest()


def ledger_lines(root: Path) -> str:
    """Return the metadata lines of the ledger file and its write-ahead log (see above)."""
    lines = []
    for name in (LEDGER_FILE, LEDGER_FILE + "-wal"):
        try:
            st = os.stat(root / name)
        except FileNotFoundError:
            st = None
        # A reader creates an empty log where there was none: both hold nothing.
        if st is None or (name.endswith("-wal") and st.st_size == 0):
            lines.append(f"{name}|empty\n")
        else:
            lines.append(_stat_line(name, st))
    return "".join(lines)


def _folder_lines(base: Path) -> Iterator[bytes]:
    """Yield the metadata line of the blob folder and of each folder in it, in name order."""
    try:
        st = os.stat(base)
    except FileNotFoundError:
        yield b"blobs|missing\n"
        return
    yield _folder_line("blobs", False, st)
    with os.scandir(base) as it:
        entries = sorted(it, key=lambda e: e.name)
    for e in entries:
        try:
            st = e.stat()  # symlinks followed: the check reads through them (and flags them)
        except OSError:
            yield f"{e.name}|gone\n".encode()
            continue
        yield _folder_line(e.name, e.is_symlink(), st)


def _folder_line(name: str, link: bool, st: os.stat_result) -> bytes:
    return (f"{name}|{int(link)}|{st.st_mode:o}|{st.st_dev}|{st.st_ino}|{st.st_mtime_ns}|"
            f"{st.st_ctime_ns}\n").encode()


def fingerprint(root: Path) -> str:
    """Return the digest of everything the ledger check reads, as file metadata (see above).

    Empty when the checking code's files cannot be read (then nothing is memoised).
    """
    code = code_digest(_CODE)
    if code is None:
        return ""  # the checking code cannot be identified: no memo
    h = hashlib.sha256(code)
    h.update(ledger_lines(root).encode())
    try:  # the head log the check holds the chain against (store.head_log)
        h.update(_stat_line(HEAD_LOG_FILE, os.stat(root / HEAD_LOG_FILE)).encode())
    except FileNotFoundError:
        h.update(f"{HEAD_LOG_FILE}|missing\n".encode())
    for line in _folder_lines(root / "blobs"):
        h.update(line)
    return h.hexdigest()


def memo_path(folder: Path, root: Path, kind: str = "") -> Path:
    """Return the memo file of the store at `root` (`kind` tells memos of one store apart)."""
    name = hashlib.sha256(str(root.resolve()).encode()).hexdigest()
    return folder / f"{name}{'.' + kind if kind else ''}.json"


def read_doc(path: Path, key: str | None) -> dict[str, Any] | None:
    """Return the memo document at `path` when it was kept for fingerprint `key` (any, if None),
    else None."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or (
            key is not None and doc.get("key") != key):
        return None
    return doc


def write_doc(path: Path, doc: dict[str, Any], sort_keys: bool = True) -> None:
    """Write a memo document atomically (silently skipped if the cache is unwritable)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(doc, sort_keys=sort_keys), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        return


def lookup(root: Path, key: str, reopen: Reopen | None) -> dict[str, Any] | None:
    """Return the memoised check of `root` for fingerprint `key`, or None (a miss)."""
    folder = memo_dir()
    if folder is None or not key:
        return None
    doc = read_doc(memo_path(folder, root), key)
    if doc is None:
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
    write_doc(memo_path(folder, root), {
        "format": FORMAT, "store": str(root.resolve()), "key": key,
        "reopened": [list(r) for r in reopened], "qualification": qualification})
