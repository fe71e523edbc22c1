"""The agm import's episode blobs, read ahead of it by reader processes on the other cores.

Reading an episode blob (read, inflate, sha256 against its name, decode, summarise: agm_blob)
is most of an import's work per episode and needs nothing of the ledger but the digest. The
import walks the ledger in chunks of `CHUNK` administrations and hands each chunk's digests to
a reader process (forked, so it starts with this process's code already imported), at most
`DEPTH` chunks ahead of the episodes it builds (memory stays bounded); each chunk's results
come back in ledger order, so the archive, and every report made from it, is the one a walk
in this process gives. `AGM_ARCHIVE_READERS=N` sets the number of reader processes (0: every
blob read in the importing process); by default one reader where this process may use two
CPUs or more (none on one CPU), and none for a store of fewer than `CHUNK` administrations. A
reader ignores Ctrl-C (the importing process stops it when it ends, however it ends); a reader
that dies or a chunk that cannot come back takes the importing process's own read instead.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import islice
from typing import Any, TypeVar

from agentmetrology.archive.importers.agm_blob import Found, read_episode
from agentmetrology.records.errors import UserError
from agentmetrology.store.blobs import BlobStore

READERS_ENV = "AGM_ARCHIVE_READERS"
CHUNK = 256  # administrations per request to a reader
DEPTH = 4  # requests in flight: at most CHUNK * DEPTH episodes' results held ahead
MAX_READERS = 64

T = TypeVar("T")
_BLOBS: BlobStore | None = None  # a reader's store (inherited when the reader is forked)


def reader_count() -> int:
    """Return the reader processes to use: AGM_ARCHIVE_READERS, else one on two CPUs or more."""
    text = os.environ.get(READERS_ENV, "").strip()
    if not text:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
            os.cpu_count() or 1)
        return 1 if cpus >= 2 else 0
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= MAX_READERS:
        raise UserError(f"{READERS_ENV}={text!r}: expected a number of reader processes from "
                        f"0 to {MAX_READERS}")
    return n


def _start(blobs: BlobStore) -> None:
    global _BLOBS
    _BLOBS = blobs
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the import, which stops us


def _read_chunk(digests: list[str]) -> list[Found]:
    assert _BLOBS is not None
    return [read_episode(_BLOBS, d) for d in digests]


class BlobsAhead:
    """Episode blobs read ahead of an import walk (see the module docstring); a context
    manager: leaving it stops the readers."""

    def __init__(self, blobs: BlobStore, readers: int | None = None) -> None:
        self.blobs = blobs
        self.readers = reader_count() if readers is None else readers
        if "fork" not in multiprocessing.get_all_start_methods():
            self.readers = 0  # a reader started afresh would import everything again
        self._pool: ProcessPoolExecutor | None = None
        self._chunks = 0

    def __enter__(self) -> BlobsAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def walk(self, rows: Iterable[T], digest_of: Callable[[T], str | None]
             ) -> Iterator[tuple[T, Found | None]]:
        """Yield each row with what its episode blob holds (None where `digest_of` names no
        blob), in the order of `rows`."""
        it = iter(rows)
        pending: deque[tuple[list[T], list[str | None], Any]] = deque()
        while True:
            while len(pending) < DEPTH:
                batch = list(islice(it, CHUNK))
                if not batch:
                    break
                digests = [digest_of(r) for r in batch]
                wanted = [d for d in digests if d is not None]
                pending.append((batch, digests, self._submit(wanted, len(batch) == CHUNK)))
            if not pending:
                return
            batch, digests, job = pending.popleft()
            found = iter(self._result(job))
            for row, d in zip(batch, digests, strict=True):
                yield row, None if d is None else next(found)

    def _submit(self, digests: list[str], full: bool) -> list[str] | tuple[list[str], Future]:
        if self._pool is None and full and self.readers > 0:
            self._pool = ProcessPoolExecutor(
                self.readers, mp_context=multiprocessing.get_context("fork"),
                initializer=_start, initargs=(self.blobs,))
        self._chunks += 1
        # Building the episodes takes about a third of what reading their blobs does, so this
        # process reads one chunk in every 3 * readers + 1 itself, rather than wait.
        if self._pool is None or not digests or self._chunks % (3 * self.readers + 1) == 0:
            return digests  # read here, when its turn comes
        try:
            return digests, self._pool.submit(_read_chunk, digests)
        except BrokenProcessPool:  # a reader died: every blob left is read here
            self.readers = 0
            return digests

    def _result(self, job: list[str] | tuple[list[str], Future]) -> list[Found]:
        if isinstance(job, tuple):
            digests, future = job
            try:
                return future.result()
            except Exception:  # a reader died, or a result could not come back: read here
                job = digests
        return [read_episode(self.blobs, d) for d in job]
