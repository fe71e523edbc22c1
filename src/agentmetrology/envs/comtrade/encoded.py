"""The last data.jsonl text the model-free agents' encoder wrote, remembered for its readers.

`payload.encode_payload` writes every harness and scripted submission. Right after, the service
acknowledges that very text (counting its lines) and the scorers read it (scoring/genuine.py
recognises generated rows' lines). What the encoder knew as it wrote the text, its row count and
its rows, saves them a pass over it: each reader asks by identity (the entry holds the text, so
its id cannot be reused meanwhile), and the scorer still compares every byte of what it is told.
"""

from __future__ import annotations

import threading
from typing import Any

# Texts of at most this many rows are remembered (every small task's; the entry lives until the
# thread's next note, so a large text and its rows are never kept past their episode).
MAX_ROWS = 4096
_LAST = threading.local()


def note(text: str, rows: list[Any]) -> None:
    """Record that `text` is the encoding of `rows`, one compact JSON value per line."""
    _LAST.entry = ((text, rows, len(rows) if text.isascii() else None)
                   if len(rows) <= MAX_ROWS else None)


def line_count(text: str) -> int | None:
    """Return the non-blank lines of `text` when it is the last text noted and ASCII, else None.

    In ASCII JSON every character str.splitlines breaks at is escaped and no value encodes
    blank, so the lines are the rows; a non-ASCII text may hold U+2028 or U+0085 unescaped.
    """
    entry = getattr(_LAST, "entry", None)
    return entry[2] if entry is not None and entry[0] is text else None


def rows_of(text: str) -> list[Any] | None:
    """Return the rows `text` was encoded from when it is the last text noted, else None
    (a hint only: the rows are the caller's, who may have changed them since)."""
    entry = getattr(_LAST, "entry", None)
    return entry[1] if entry is not None and entry[0] is text else None
