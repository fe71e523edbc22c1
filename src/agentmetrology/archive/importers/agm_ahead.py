"""The agm import's episode blobs, read ahead of it by reader processes on the other cores.

Reading an episode blob (read, inflate, sha256 against its name, decode, summarise: agm_blob)
is most of an import's work per episode and needs nothing of the ledger but the digest. The
import walks the ledger in chunks of `CHUNK` administrations and hands each chunk's digests to
a reader process (forked, so it starts with this process's code already imported), at most
`DEPTH` chunks ahead of the episodes it builds (memory stays bounded); each chunk's results
come back in ledger order, so the archive, and every report made from it, is the one a walk
in this process gives. Where the walk would wait for a reader, it reads here the last chunk
not yet handed to a reader (each holds two at most), so neither side idles while the other
works.
`AGM_ARCHIVE_READERS=N` sets the number of reader processes (0: every
blob read in the importing process); by default one reader where this process may use two
CPUs or more (none on one CPU), and none for a store of fewer than `CHUNK` administrations. A
reader ignores Ctrl-C (the importing process stops it when it ends, however it ends); a reader
that dies or a chunk that cannot come back takes the importing process's own read instead.

A reader also runs ahead what the import will ask of an episode next, where the walk says what
(`ask_of`) and the import gives the work (`ahead`, handed over by the fork): the grade recovery's
replays (agm_store), each run once per reader for its inputs and sent back by them, which the
recovery then takes from its memo instead of running them after the walk. Chunks read here run
none ahead (the recovery runs those replays itself, as before).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import islice
from typing import Any, TypeVar

from agentmetrology.archive.importers.agm_blob import Found, read_episode
from agentmetrology.records.errors import UserError
from agentmetrology.store.blobs import BlobStore
from agentmetrology.store.forked import can_fork, forked_pool, usable_cpus

READERS_ENV = "AGM_ARCHIVE_READERS"
CHUNK = 256  # administrations per request to a reader
DEPTH = 6  # requests in flight: at most CHUNK * DEPTH episodes' results held ahead
MAX_READERS = 64

T = TypeVar("T")
# What a reader runs ahead of an episode: (digest, what it found, what the walk asked, the
# reader's memo) -> (key, result) to send back, or None.
Ahead = Callable[[BlobStore, str, Found, Any, dict[str, Any]], tuple[str, Any] | None]
_BLOBS: BlobStore | None = None  # a reader's store (inherited when the reader is forked)
_AHEAD: Ahead | None = None  # and what it runs ahead (inherited too)
_MEMO: dict[str, Any] = {}  # a reader's results run ahead so far, by key (sent back once)


def reader_count() -> int:
    """Return the reader processes to use: AGM_ARCHIVE_READERS, else one on two CPUs or more
    (none where workers cannot be forked)."""
    if not can_fork():
        return 0  # a reader started afresh would import everything again
    text = os.environ.get(READERS_ENV, "").strip()
    if not text:
        return 1 if usable_cpus() >= 2 else 0
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= MAX_READERS:
        raise UserError(f"{READERS_ENV}={text!r}: expected a number of reader processes from "
                        f"0 to {MAX_READERS}")
    return n


def _start(blobs: BlobStore, ahead: Ahead | None = None) -> None:
    global _BLOBS, _AHEAD
    _BLOBS, _AHEAD = blobs, ahead
    _MEMO.clear()


def _read_chunk(items: list[tuple[str, Any]]) -> tuple[list[Found], dict[str, Any]]:
    """Return what each (digest, ask) blob holds, and the results run ahead of the asks that
    this reader had not run before (an ask that raises runs nothing: the import runs it)."""
    assert _BLOBS is not None
    found = [read_episode(_BLOBS, d) for d, _ in items]
    new: dict[str, Any] = {}
    if _AHEAD is not None:
        for (d, ask), f in zip(items, found, strict=True):
            if ask is None:
                continue
            try:
                got = _AHEAD(_BLOBS, d, f, ask, _MEMO)
            except Exception:  # the import runs it, and meets what it raises, as before
                got = None
            if got is not None:
                new[got[0]] = got[1]
    return found, new


class BlobsAhead:
    """Episode blobs read ahead of an import walk (see the module docstring); a context
    manager: leaving it stops the readers."""

    def __init__(self, blobs: BlobStore, readers: int | None = None,
                 ahead: Ahead | None = None) -> None:
        self.blobs = blobs
        self.readers = reader_count() if readers is None else readers
        self.ahead = ahead
        self.results: dict[str, Any] = {}  # what the readers ran ahead, by key
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> BlobsAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def walk(self, rows: Iterable[T], digest_of: Callable[[T], str | None],
             ask_of: Callable[[T], Any] | None = None) -> Iterator[tuple[T, Found | None]]:
        """Yield each row with what its episode blob holds (None where `digest_of` names no
        blob), in the order of `rows`; a reader runs `ahead` of each row's `ask_of` (None:
        nothing), before the row is yielded, and keeps what it ran in `results`."""
        it = iter(rows)
        pending: deque[tuple[list[T], list[str | None], _Job]] = deque()
        while True:
            while len(pending) < DEPTH:
                batch = list(islice(it, CHUNK))
                if not batch:
                    break
                digests = [digest_of(r) for r in batch]
                asks = ([None] * len(batch) if ask_of is None or self.ahead is None
                        else [ask_of(r) for r in batch])  # before the fork: see load_agm
                if self._pool is None and len(batch) == CHUNK and self.readers > 0:
                    self._pool = forked_pool(self.readers, _start, (self.blobs, self.ahead))
                pending.append((batch, digests, _Job([(d, a) for d, a in zip(
                    digests, asks, strict=True) if d is not None])))
            if not pending:
                return
            self._hand_over(pending)
            while not pending[0][2].ready() and self._steal(pending):
                pass  # rather than wait, read here the last chunk no reader was handed
            batch, digests, job = pending.popleft()
            found = iter(job.result(self.blobs, self.results))
            for row, d in zip(batch, digests, strict=True):
                yield row, None if d is None else next(found)

    def _hand_over(self, pending: deque[tuple[list[T], list[str | None], _Job]]) -> None:
        """Hand chunks to the readers in walk order, two per reader at most at a time (one
        read, one waiting), so that the walk can still take the later ones itself."""
        if self._pool is None:
            return
        busy = sum(1 for _, _, j in pending if j.future is not None and not j.future.done())
        for _, _, job in pending:
            if busy >= 2 * self.readers:
                return
            if job.future is None and job.found is None and job.items:
                try:
                    job.future = self._pool.submit(_read_chunk, job.items)
                except (BrokenProcessPool, OSError):  # a reader died, or could not be forked
                    # (submit forks it: process limit, memory): every blob left is read here
                    self._pool.shutdown(wait=False)
                    self._pool, self.readers = None, 0
                    return
                busy += 1

    def _steal(self, pending: deque[tuple[list[T], list[str | None], _Job]]) -> bool:
        """Read here the last chunk not handed to a reader; False when there is none."""
        for _, _, job in reversed(pending):
            if job.future is None and job.found is None:
                job.found = job.read_here(self.blobs)
                return True
        return False


class _Job:
    """A chunk's (digest, ask) items and their reading: by a reader (`future`), or here
    (`found`)."""

    __slots__ = ("found", "future", "items")

    def __init__(self, items: list[tuple[str, Any]],
                 future: Future[tuple[list[Found], dict[str, Any]]] | None = None) -> None:
        self.items, self.future = items, future
        self.found: list[Found] | None = None

    def ready(self) -> bool:
        """Return True when taking the result waits for no reader."""
        return self.future is None or self.future.done()  # (not handed over: read here)

    def read_here(self, blobs: BlobStore) -> list[Found]:
        """Return what the chunk's blobs hold, read in this process (nothing run ahead)."""
        return [read_episode(blobs, d) for d, _ in self.items]

    def result(self, blobs: BlobStore, results: dict[str, Any]) -> list[Found]:
        """Return what the chunk's blobs hold (read here if no reader gave it), adding to
        `results` what its reader ran ahead."""
        if self.found is not None:
            return self.found
        if self.future is not None:
            try:
                found, ran = self.future.result()
            except Exception:  # a reader died, or a result could not come back: read here
                pass
            else:
                for key, value in ran.items():
                    results.setdefault(key, value)
                return found
        return self.read_here(blobs)
