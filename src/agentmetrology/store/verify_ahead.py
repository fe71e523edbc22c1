"""The ledger half of a full store check, run in a forked process while the store is imported.

`agm archive audit` of our own store imports it and then checks it in full (store.verify).
Most of the check reads the ledger alone, nothing the import reads: its pages and schema, the
hash chain against the head log, every row against its sealed digest, the sealed texts
(`_Verifier.ledger_steps`), the sealed bindings (`BindingChecks.bindings`), and the episode
checks' walk of the ledger (`EpisodeChecks.episodes`: each assessment checked, each episode's
row and token kept in order for the check to compare with the blob it reads), these two after
the blob checks (their findings are placed there). `LedgerAhead` runs those in a forked process
(see store.forked) while the import runs here; the check then takes what they found
(`verify_store(ledger=...)`) in their place and runs the rest itself, with the import's blob
verdicts. Both halves open the ledger read-only, as the check always did (each query reads the
ledger as it is then), and the qualification is the one the whole check run here gives (its
problems in the same order). When the process cannot run or its result cannot come back, the
check runs every step here.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import EllipsisType
from typing import Any

from agentmetrology.records.errors import UserError
from agentmetrology.store.chain import is_sealed
from agentmetrology.store.forked import (
    can_fork,
    start_forked,
    stop_forked,
    usable_cpus,
    worker_start,
)
from agentmetrology.store.head_log import was_chained
from agentmetrology.store.ledger import KEY_COLUMNS
from agentmetrology.store.qualify import INVALID, Problem
from agentmetrology.store.verify import LEDGER_FILE, _Verifier, open_ledger_readonly, store_head
from agentmetrology.store.verify_bindings import Reopen
from agentmetrology.store.verify_episodes import EpisodeItem, EpisodesPart, row_token
from agentmetrology.store.verify_split import SPLIT_FROM


@dataclass(frozen=True)
class BindingsPart:
    """What the binding checks (`BindingChecks.bindings`) found: their problems and counts,
    why a query of theirs failed (None: none did), and each specification they re-opened with
    its digest now, in the order they asked (`reopen`'s answers)."""

    problems: tuple[Problem, ...] = ()
    checked: dict[str, int] = field(default_factory=dict)
    failed: str | None = None
    reopened: tuple[tuple[tuple[str, str, str], str | None], ...] = ()


@dataclass(frozen=True)
class LedgerHalf:
    """What `_Verifier.ledger_steps` found of a store in a full check: its problems, counts
    and notes, the chain's length and head, the head log's size and digest as read, whether
    the ledger's pages failed a query (the check then reads nothing more), and what the binding
    checks found, run after them."""

    problems: tuple[Problem, ...]
    checked: dict[str, int]
    notes: tuple[str, ...]
    counts: dict[str, int]
    length: int
    head: str
    log_size: int
    log_digest: str
    failed: bool
    bindings: BindingsPart = BindingsPart()
    episodes: EpisodesPart | None = None  # None: the check runs the episode checks itself


def ledger_half(root: Path, reopen: Reopen | None = None, mode: str = "full",
                walked: Callable[[], None] | None = None,
                episodes: bool = True) -> LedgerHalf | None:
    """Return what the ledger steps and the binding checks of a whole `mode` check (`full`
    or `ledger`) of `root` find (`reopen` as `verify_store` takes it), None for an unsealed
    ledger (the check says so itself); NotAStoreError when there is no readable ledger.
    `walked()` is called once the chain is walked (store.verify_split waits for it).
    `episodes`: also walk the episode checks' ledger reads (the audit's half, whose check
    compares each row with the import's read of its blob; a split check runs them itself)."""
    asked: dict[tuple[str, str, str], str | None] = {}

    def ask(environment: str, task: str, profile: str) -> str | None:
        assert reopen is not None
        asked[(environment, task, profile)] = now = reopen(environment, task, profile)
        return now

    with closing(open_ledger_readonly(root)) as c:
        if not (is_sealed(c) or was_chained(c, root / LEDGER_FILE)):
            return None
        v = _Half(root, c, mode, None if reopen is None else ask)
        failed = False
        try:
            v.ledger_steps(walked)
        except sqlite3.DatabaseError as exc:  # as `_Verifier.run` names it
            v.pages_failed(exc)
            failed = True
        half = LedgerHalf(tuple(v.problems), dict(v.checked), tuple(v.notes), dict(v.counts),
                          *v.at, v.witness.log.size, v.witness.log.digest, failed)
        if failed:
            return half
        v.problems, v.checked, why = [], {}, None
        try:  # they read the ledger alone too; their findings follow the blob checks'
            v.bindings()
        except sqlite3.DatabaseError as exc:
            why = str(exc)
        part = BindingsPart(tuple(v.problems), dict(v.checked), why, tuple(asked.items()))
        return replace(half, bindings=part,
                       episodes=_episodes(v) if episodes and why is None else None)


def _episodes(v: _Half) -> EpisodesPart:
    """Return what the episode checks find of the ledger alone (after the binding checks)."""
    v.checked, v.recording, v.shared, why = {}, [], {}, None
    try:
        v.episodes()
    except sqlite3.DatabaseError as exc:  # where the check stops, after the items before it
        why = str(exc)
    return EpisodesPart(tuple(v.recording), dict(v.checked), why)


class _Half(_Verifier):
    """The ledger half's verifier: once `recording`, its episode checks keep what they find
    (each problem, each episode to check against its blob, in order) for the check to take."""

    recording: list[Problem | EpisodeItem] | None = None
    # One object per distinct text of the keys and rows recorded (campaign, target, task,
    # termination ...): pickled once each, so the check holds each once, not once per episode.
    shared: dict[str, str]

    def bad(self, kind: str, where: str, detail: str, result: str = INVALID) -> None:
        if self.recording is None:
            super().bad(kind, where, detail, result)
        else:
            self.recording.append(Problem(kind, result, where, detail))

    def episode(self, where: str, key: dict[str, Any], row: tuple[Any, ...],
                token: bytes | EllipsisType | None = ...) -> None:
        if self.recording is None:
            super().episode(where, key, row, token)
        else:  # the blob is the check's to read: the row and its token, for it
            one = self.shared.setdefault
            values = [key[k] for k in KEY_COLUMNS]
            self.recording.append((
                where, tuple(one(v, v) if type(v) is str else v for v in values),
                (*row[:2], *(one(v, v) if type(v) is str else v for v in row[2:])),
                row_token(key, row)))


def worth_splitting(root: Path) -> bool:
    """Return True when a whole check of `root` should run its ledger half in another process
    (store.verify_split): a second CPU, fork, a chain of at least SPLIT_FROM entries, not
    `AGM_CHECK_SPLIT=0` (one process: less memory in all, more time), and no other thread in
    this process: a fork copies only the calling thread, so a lock another one holds then (in
    SQLite, say: the viewer's request threads read the store) would never be released in the
    forked process, which could wait on it for ever."""
    if (os.environ.get(SPLIT_ENV, "").strip() == "0" or usable_cpus() < 2 or not can_fork()
            or threading.active_count() > 1):
        return False
    try:
        return store_head(root)[0] >= SPLIT_FROM
    except UserError:  # no readable chain: the check itself says so
        return False


SPLIT_ENV = "AGM_CHECK_SPLIT"
WALKED = "walked"  # sent once the half's chain walk is over, before its result


class LedgerAhead:
    """The ledger half of a whole `mode` check of `root`, started in a forked process on
    entering (a context manager: leaving it stops the process if it still runs); `result`
    waits for it."""

    def __init__(self, root: Path, reopen: Reopen | None = None, mode: str = "full",
                 episodes: bool = True) -> None:
        self.root, self.reopen, self.mode, self.episodes = root, reopen, mode, episodes
        self._proc: BaseProcess | None = None
        self._recv: Connection | None = None
        self.taken: LedgerHalf | None = None  # what `result` returned

    def __enter__(self) -> LedgerAhead:
        self._proc, self._recv = start_forked(_run, (self.root, self.reopen, self.mode,
                                                     self.episodes))
        return self

    def __exit__(self, *exc: object) -> None:
        stop_forked(self._proc, self._recv)  # the audit ended early (an error, Ctrl-C)
        self._proc = self._recv = None

    def walked(self) -> bool:
        """Wait until the half has walked the chain (or found it cannot: damaged pages);
        False when it could not start or ended first (the check then runs here)."""
        if self._recv is None:
            return False
        try:
            said = self._recv.recv()
        except (EOFError, OSError):
            said = None
        if said == WALKED:
            return True
        self._recv.close()  # ended without walking: no result will come
        self._recv = None
        return False

    def result(self) -> LedgerHalf | None:
        """Return what the ledger half found, None when the check must run it here (kept:
        `taken` holds it afterwards)."""
        if self._recv is None:
            return self.taken
        try:
            half = self._recv.recv()
            if half == WALKED:  # (`walked` was not asked for)
                half = self._recv.recv()
        except (EOFError, OSError):  # it died without a result
            half = None
        self._recv.close()
        self._recv = None
        self.taken = half if isinstance(half, LedgerHalf) else None
        return self.taken


def _run(root: Path, reopen: Reopen | None, mode: str, episodes: bool, send: Connection,
         recv: Connection, parent: int) -> None:
    worker_start(parent)  # Ctrl-C is the audit's to handle; a killed audit leaves no check
    recv.close()  # the audit's end: held here too, a send could wait for ever on a full pipe
    told = []

    def walked() -> None:
        send.send(WALKED)
        told.append(True)

    try:
        half = ledger_half(root, reopen, mode, walked, episodes)
    except Exception:  # the check runs every step itself, and says why
        half = None
    try:
        if not told:  # stopped before the walk (damaged pages, no chain): nothing to wait for
            send.send(WALKED)
        send.send(half)
        send.close()
    except OSError:  # the audit no longer reads (it left early): nothing to tell
        pass
