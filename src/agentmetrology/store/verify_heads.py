"""The store check of the chain against its head log and a pinned head: rollbacks and rewrites.

See store.head_log for why the log exists. The check walks the chain once (store.verify) and
is handed the stored head of each length the log (or `--expect-head`) names, then compares.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from agentmetrology.store.chain import GENESIS
from agentmetrology.store.head_log import HEAD_LOG_FILE, HEAD_LOG_META, LogRead, read_log
from agentmetrology.store.qualify import INVALID

NO_HEAD_LOG = ("no head log: truncation cannot be detected (the store was made before head "
               "logs; the next writer to open it starts one, witnessing from then on)")
# (kind, result, where, detail)
Finding = tuple[str, str, str, str]


def parse_head(text: str) -> tuple[int, str]:
    """Return (length, head) from `LENGTH:HEAD` (ValueError with what is wrong)."""
    length, sep, h = text.partition(":")
    if not sep or not length.isdigit() or len(h) != 64 or set(h) - set("0123456789abcdef"):
        raise ValueError(f"{text!r} is not LENGTH:HEAD (a chain length, a colon and the 64 hex "
                         "digits of its head, as `agm evidence head STORE` prints them)")
    return int(length), h


class HeadWitness:
    """The head log and the pinned head of one check, and the chain's heads at their lengths."""

    def __init__(self, c: sqlite3.Connection, root: Path,
                 expect: tuple[int, str] | None = None,
                 resume: tuple[int, str] | None = None) -> None:
        # resume: the log's bytes verified by the check an incremental one starts from
        self.log: LogRead = read_log(root / HEAD_LOG_FILE, resume)
        self.expect = expect
        row = c.execute("SELECT value FROM meta WHERE key=?", (HEAD_LOG_META,)).fetchone()
        self.start: str | None = None if row is None else str(row[0])
        self.wanted = {length for length, _ in self.log.entries}
        if expect is not None:
            self.wanted.add(expect[0])
        self.seen: dict[int, str] = {0: GENESIS}

    def findings(self, length: int, broken: bool = False) -> tuple[list[Finding], list[str]]:
        """Return the problems and notes of the chain (of `length` entries) against the log.

        `broken`: the chain's heads do not link (already a problem naming the edited entries),
        so a witnessed head that differs says nothing more and is not listed again.
        """
        problems = list(self._log_findings(length, broken))
        notes = []
        if not self.log.exists and self.start is None:
            notes.append(NO_HEAD_LOG)
        if self.log.torn:
            notes.append(f"{HEAD_LOG_FILE}: its last line is incomplete (a write cut short); "
                         "it was not read")
        last = self.log.entries[-1][0] if self.log.entries else None
        if last is not None and last < length and not problems:
            notes.append(f"{HEAD_LOG_FILE} is behind: the last {length - last} chain entries "
                         "are not witnessed yet (a writer stopped between its commit and its "
                         "log line; the next writer adds the head), so their removal could "
                         "not be detected")
        if self.expect is not None:
            problems.extend(self._expected(length, notes))
        return problems, notes

    def _log_findings(self, length: int, broken: bool) -> Iterator[Finding]:
        log = self.log
        if not log.exists:
            if self.start is not None:
                yield ("head_log_missing", INVALID, HEAD_LOG_FILE, "the ledger started a head "
                       f"log at chain length {self.start} but it is gone: truncation cannot "
                       "be detected")
            return
        if self.start is None:
            yield ("head_log_mismatch", INVALID, f"meta {HEAD_LOG_META}", "the head log "
                   "exists but the ledger no longer records where it started")
        for n in log.bad_lines[:10]:
            yield ("head_log_unreadable", INVALID, f"{HEAD_LOG_FILE} line {n}",
                   "not `LENGTH HEAD`, or a length not above the line before it")
        first = log.entries[0][0] if log.entries else None
        if self.start is not None and str(first) != self.start:
            yield ("head_log_missing", INVALID, HEAD_LOG_FILE, f"the log starts at chain length "
                   f"{first}, the ledger started it at {self.start}: its first lines were "
                   "removed or the log was replaced")
        beyond = [(n, h) for n, h in log.entries if n > length]
        if beyond:
            n, h = beyond[-1]
            yield ("chain_truncated", INVALID, HEAD_LOG_FILE, f"the head log witnessed chain "
                   f"length {n} (head {h[:12]}) but the chain has {length} entries: the ledger "
                   "was rolled back (its last entries removed)")
        differ = [(n, h) for n, h in log.entries if n <= length and self.seen.get(n) != h]
        if differ and not broken:
            n, h = differ[0]
            yield ("head_log_mismatch", INVALID, f"{HEAD_LOG_FILE} length {n}", f"the log "
                   f"witnessed head {h[:12]}, the chain's head there is "
                   f"{str(self.seen.get(n))[:12]}: the chain was rewritten"
                   + (f" ({len(differ)} witnessed heads differ)" if len(differ) > 1 else ""))

    def _expected(self, length: int, notes: list[str]) -> Iterator[Finding]:
        assert self.expect is not None
        n, h = self.expect
        where = f"expected head {n}:{h[:12]}"
        if n > length:
            yield ("chain_truncated", INVALID, where, f"the chain has {length} entries, fewer "
                   f"than the {n} of the pinned head: the ledger was rolled back")
        elif self.seen.get(n) != h:
            yield ("expected_head_mismatch", INVALID, where, f"the chain's head at length {n} "
                   f"is {str(self.seen.get(n))[:12]}: the chain was rewritten")
        elif n < length:
            notes.append(f"the store grew by {length - n} chain entries since the pinned head")
