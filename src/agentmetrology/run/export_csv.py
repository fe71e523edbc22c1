"""CSV lines of streamed export rows built a column at a time: the bytes `csv.writer` gives.

`csv.writer` (the excel dialect, `\\n` line ends) converts and checks every cell in turn. For
the usual columns of an export (names, hex digests, counts, finite floats, nulls) a cell is
written as it is: a str with no character the writer quotes, `str()` of an int or a float, and
an empty cell for a null. So a batch whose every column is of those goes through one line
template (`%s,%s,...`); any other batch (a str with a comma, a quote, a line break or another
control character, a bool, a nested value; a one-column table, whose empty row csv quotes) is
written by `csv.writer` itself.

A text cell that a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab
or a carriage return: an agent's error message, a results file's task id) is written with a
leading `'`, the mark spreadsheets read as "this is text": the CSV differs there, and only
there, from the JSON Lines and Parquet values. Numbers are never marked (`-0.5` stays a number).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from typing import Any

_NONE = type(None)
_PLAIN_KINDS = frozenset({str, int, float, _NONE})
# The bytes csv quotes a cell for (the delimiter, the quote, line ends), with every other
# control character too, to stay on the safe side of what the writer does with them.
_SPECIAL = bytes(range(0x20)) + b',"\x7f'
# What a spreadsheet reads as the start of a formula (OWASP's list); tab and carriage return
# are control characters, so only a batch csv.writer writes can hold them.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_FORMULA_AFTER_BREAK = tuple("\n" + c for c in FORMULA_STARTS[:4])


def spreadsheet_safe(value: Any) -> Any:
    """Return `value`, or a text that would start a formula with a leading `'` (kept as text)."""
    if type(value) is str and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _plain(text: str) -> bool:
    """Return True when csv writes `text` as it is (nothing to quote)."""
    raw = text.encode("utf-8", "surrogatepass")
    return len(raw.translate(None, _SPECIAL)) == len(raw)


def _slot(values: tuple[Any, ...]) -> tuple[str, Sequence[Any] | None] | None:
    """Return one column's slot in the line template and its values (None: no template)."""
    kinds = set(map(type, values))
    if not kinds <= _PLAIN_KINDS:
        return None
    if kinds == {_NONE}:
        return "", None
    nulls = _NONE in kinds
    if str in kinds:
        texts = [v for v in values if type(v) is str]
        if not _plain("".join(texts)):
            return None
        # a plain text holds no line break, so one after a break is where a cell starts
        starts = "\n" + "\n".join(texts)
        if any(m in starts for m in _FORMULA_AFTER_BREAK):
            return None  # csv.writer's path, which marks the cell
    return "%s", ["" if v is None else v for v in values] if nulls else values


def csv_encoder(columns: list[str]) -> Callable[[list[list[Any]]], str]:
    """Return a function giving the CSV text of a batch of rows (value lists), no header."""

    def by_writer(rows: list[list[Any]]) -> str:
        buf = io.StringIO(newline="")
        csv.writer(buf, lineterminator="\n").writerows(
            [[spreadsheet_safe(v) for v in row] for row in rows])
        return buf.getvalue()

    def encode(rows: list[list[Any]]) -> str:
        if len(columns) < 2 or not rows:
            return by_writer(rows)
        slots, filled = [], []
        for col in zip(*rows, strict=True):
            got = _slot(col)
            if got is None:
                return by_writer(rows)
            slots.append(got[0])
            if got[1] is not None:
                filled.append(got[1])
        template = ",".join(slots) + "\n"
        if not filled:  # every column null in the whole batch
            return template * len(rows)
        return "".join([template % t for t in zip(*filled, strict=True)])
    return encode
