"""The order of a store check's steps, run here or split across two processes.

`SplitChecks.steps` runs them in one process: the ledger steps, the blob checks, the binding
checks, the episode checks; a query that fails on damaged pages stops the check there. In an
archive audit the ledger half (ledger steps and binding checks) may have run in another
process while the store was imported (store.verify_ahead): `take` puts its findings in their
steps' place.

A whole check on two cores (`split_steps`): a `full` or `ledger` check of a whole store (no
verified head to start from) reads the ledger alone in two of its steps: the ledger steps
(pages, schema, chain, head log, rows, sealed texts) and the binding checks. The other two read
blobs: the blob checks (presence, and the bytes' hashes unless cheap) and the episode checks
(each episode blob against its row). Neither pair needs what the other finds, so
`store.verify_ahead.LedgerAhead` runs the first pair in a forked process while this one runs the
second, starting once the other has walked the chain (as in one process, where the walk comes
first: the blob and episode queries then see every entry the walk saw, so the verified head a
check leaves covers no episode it did not read, however a writer appended meanwhile); the
findings are then put in the order the check run in one process gives (ledger steps, blobs,
bindings, episodes, with what stops a check where it stops it), so the qualification is the
same, byte for byte. When no process could be had or its result did not come back, every step
runs here, in order.

On a large store this is most of the first `agm campaign status` of a store this machine never
checked, and of `agm evidence verify` (benchmarks/check_split.py measures both ways side by
side). Below SPLIT_FROM chain entries a check is too short for the fork to pay.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agentmetrology.store.qualify import Problem

if TYPE_CHECKING:
    from agentmetrology.store.verify_ahead import LedgerHalf

# Chain entries (about six an episode) from which a whole check forks its ledger half. A check
# of 20,000 entries takes about 1 s on this machine's cores, a fork and the half's result a
# few milliseconds; below it the gain is too small to be worth a process.
SPLIT_FROM = 20_000


class PendingHalf(Protocol):
    """A ledger half running elsewhere (store.verify_ahead.LedgerAhead)."""

    def walked(self) -> bool:
        """Wait until it has walked the chain; False when it could not start or ended first."""

    def result(self) -> LedgerHalf | None:
        """Wait for it; None when it could not run (the check then runs it here)."""


@dataclass(frozen=True)
class _Part:
    """What one step run here found, and the query failure that stopped it (None: none)."""

    problems: list[Problem]
    checked: dict[str, int]
    failure: sqlite3.DatabaseError | None


class SplitChecks(ABC):
    """The order of a check's steps, with its ledger half run here or elsewhere (the module)."""

    problems: list[Problem]
    checked: dict[str, int]
    notes: list[str]
    counts: dict[str, int]
    at: tuple[int, str]
    touched: dict[str, dict[str, str | None]]
    expected: dict[str, dict[str, str | None]]
    mode: str
    ledger: LedgerHalf | None

    @abstractmethod
    def ledger_steps(self) -> None:
        """Check all that reads no blob (store.verify)."""

    @abstractmethod
    def blobs(self) -> None:
        """Check every referenced blob (store.verify_blobs)."""

    @abstractmethod
    def bindings(self) -> None:
        """Check the sealed bindings (store.verify_bindings)."""

    @abstractmethod
    def episodes(self) -> None:
        """Check every episode blob against its row (store.verify_episodes)."""

    @abstractmethod
    def forget_blobs(self) -> None:
        """Forget what the blob checks found (store.verify_blobs)."""

    @abstractmethod
    def pages_failed(self, exc: sqlite3.DatabaseError) -> None:
        """Name the ledger's pages as too damaged for a query to finish."""

    def steps(self) -> tuple[int, str] | None:
        """Run every step here, or take the ledger half's findings in its steps' place; return
        the head log's (size, digest) as the half read it (None: as read here)."""
        log = None
        try:
            if self.ledger is None:
                self.ledger_steps()
            else:  # run elsewhere meanwhile (store.verify_ahead): what it found, in its place
                self.take(self.ledger)
                log = self.ledger.log_size, self.ledger.log_digest
            if self.ledger is None or not self.ledger.failed:
                self.blobs()
                if self.mode != "hash-only":
                    self.bindings() if self.ledger is None else self.take(self.ledger, True)
                    self.episodes()
        except sqlite3.DatabaseError as exc:  # pages too damaged for a query to finish
            self.pages_failed(exc)
        return log

    def take(self, half: LedgerHalf, bindings: bool = False) -> None:
        """Take what `ledger_steps` (or, `bindings`, the binding checks) found, run for this
        check in another process; what stopped the binding checks stops this check here."""
        if bindings:
            self.problems.extend(half.bindings.problems)
            self.checked.update(half.bindings.checked)
            if half.bindings.failed is not None:
                raise sqlite3.DatabaseError(half.bindings.failed)
            return
        self.problems.extend(half.problems)
        self.checked.update(half.checked)
        self.notes.extend(half.notes)
        self.counts, self.at = dict(half.counts), (half.length, half.head)
        self.touched, self.expected = {}, {}

    def split_steps(self, ahead: PendingHalf) -> tuple[int, str] | None:
        """Run the blob and episode checks here while `ahead` runs the ledger half; put every
        finding in the one-process order. Return the head log's (size, digest) as the half
        read it, None when every step ran here (the check's own reading holds)."""
        # The blob half starts once the chain is walked, as in one process: its queries then
        # see every entry the walk saw, so the head this check may leave covers only episodes
        # it read (a writer appending meanwhile adds entries the next check reads).
        if not ahead.walked():  # no process, or it ended first: every step here, in order
            return self.steps()
        prior = self.problems, self.checked
        parts = self._blob_half()
        half = ahead.result()
        self.problems, self.checked = prior
        if half is None:  # it ended without its findings: every step here, blobs read again
            self.forget_blobs()  # read again after this walk
            return self.steps()
        self.take(half)
        log = half.log_size, half.log_digest
        if half.failed:  # the check stops at the pages, as it does in one process
            return log
        for i, part in enumerate(parts):
            if i == 1:  # the binding checks run between the blob and the episode checks
                try:
                    self.take(half, True)
                except sqlite3.DatabaseError as exc:
                    self.pages_failed(exc)
                    return log
            self.problems.extend(part.problems)
            self.checked.update(part.checked)
            if part.failure is not None:
                self.pages_failed(part.failure)
                return log
        return log

    def _blob_half(self) -> list[_Part]:
        """Run the blob checks, then (unless hash-only) the episode checks, each apart."""
        parts: list[_Part] = []
        for step in (self.blobs,) if self.mode == "hash-only" else (self.blobs, self.episodes):
            self.problems, self.checked = [], {}
            failure = None
            try:
                step()
            except sqlite3.DatabaseError as exc:
                failure = exc
            parts.append(_Part(self.problems, self.checked, failure))
            if failure is not None:
                break
        return parts
