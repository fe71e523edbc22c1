"""Encode streamed export rows (value lists in column order) as JSON Lines, CSV or Parquet chunks.

The bytes are those of the whole-export path (`run.export_write.render`; a test holds them
equal): a JSON line is what `json.dumps(row, allow_nan=False, ensure_ascii=False)` gives, built
from a template of the column names with each value encoded by its type (json's own string
escaper, `int.__repr__`, `float.__repr__`; anything else, and a non-finite float, by the json
encoder itself, which raises as it did). Parquet is written by row groups of `batch` rows, so
memory stays bounded whatever the store's size: the same schema and values as the whole-table
write, which it equals byte for byte when the export fits in one row group.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from json.encoder import encode_basestring
from typing import Any

from agentmetrology.run.export_csv import csv_encoder, spreadsheet_safe

INT_FIELDS = frozenset({"seed", "repeat", "requests", "tool_calls", "model_attempts",
                        "input_tokens", "output_tokens"})
PARQUET_ROW_GROUP = 16_384  # rows held before a row group is written (bounds the memory)
# rows encoded at a time as JSON Lines or CSV: a batch's values stay in the CPU's caches while
# its columns are checked and its lines built (500 encoded ~10% faster than 2,000)
TEXT_BATCH = 500

# One encoder for every row: `json.dumps` with options builds a new one per call.
ROW_JSON = json.JSONEncoder(allow_nan=False, ensure_ascii=False).encode


def _any(v: Any) -> str:
    """Return the JSON of one value, as json.dumps writes it inside a row."""
    if v is None:
        return "null"
    kind = type(v)
    if kind is str:
        return encode_basestring(v)
    if kind is int:
        return int.__repr__(v)
    if kind is float and math.isfinite(v):
        return float.__repr__(v)
    return ROW_JSON(v)  # a bool, a nested value; NaN / Infinity: json's own ValueError


# the bytes json escapes in a string with ensure_ascii=False (UTF-8 of any other character
# has none of them: a multi-byte sequence is all bytes >= 0x80)
_ESCAPED = bytes(range(0x20)) + b'"\\'


def _plain(text: str) -> bool:
    """Return True when json writes `text` as it is between quotes (nothing to escape)."""
    raw = text.encode("utf-8", "surrogatepass")  # one C pass; faster than a regex search
    return len(raw.translate(None, _ESCAPED)) == len(raw)
_NONE = type(None)


def _column(values: tuple[Any, ...]) -> tuple[str, Sequence[Any] | None]:
    """Return how one column of a batch goes into the line template (its slot: `%s`, or `"%s"`
    for strings that need no escaping, or a literal `null`) and the values for that slot.

    The usual columns (names, hex digests, counts, finite floats) go in as they are: `%s` of an
    int or a float is its repr, as json writes it, and a string without a character json
    escapes is json's text between quotes; anything else is encoded value by value.
    """
    kinds = set(map(type, values))
    present = [v for v in values if v is not None] if _NONE in kinds else values
    if kinds == {_NONE}:
        return "null", None
    if kinds <= {str, _NONE} and _plain("".join(present)):
        if _NONE in kinds:
            return "%s", ["null" if v is None else '"' + v + '"' for v in values]
        return '"%s"', values
    if kinds == {int}:
        return "%s", values
    if kinds <= {float, _NONE} and all(map(math.isfinite, present)):
        return "%s", ["null" if v is None else v for v in values] if _NONE in kinds else values
    return "%s", list(map(_any, values))


def lines_encoder(columns: list[str]) -> Callable[[list[list[Any]]], str]:
    """Return a function giving the JSON Lines text of a batch of rows (value lists): each
    line is what json.dumps gives for the row as a dict, newline included."""
    keys = [encode_basestring(c).replace("%", "%%") + ": " for c in columns]

    def encode(rows: list[list[Any]]) -> str:
        if not rows:
            return ""
        slots, filled = [], []
        for key, col in zip(keys, zip(*rows, strict=True), strict=True):
            slot, vals = _column(col)
            slots.append(key + slot)
            if vals is not None:
                filled.append(vals)
        template = "{" + ", ".join(slots) + "}\n"
        if not filled:  # every column null in the whole batch
            return (template % ()) * len(rows)
        return "".join([template % t for t in zip(*filled, strict=True)])
    return encode


def text_chunks(columns: list[str], values: Iterable[list[Any]], fmt: str,
                batch: int = TEXT_BATCH) -> Iterator[bytes]:
    """Yield JSON Lines or CSV (`fmt`) of streamed rows in chunks of `batch` rows."""
    if fmt == "csv":
        yield from _csv_chunks(columns, values, batch)
        return
    encode = lines_encoder(columns)
    values = iter(values)
    while rows := list(islice(values, batch)):  # a batch taken in C, not row by row
        yield encode(rows).encode("utf-8")


def _csv_chunks(columns: list[str], values: Iterable[list[Any]], batch: int
                ) -> Iterator[bytes]:
    header = io.StringIO(newline="")
    csv.writer(header, lineterminator="\n").writerow([spreadsheet_safe(c) for c in columns])
    yield header.getvalue().encode("utf-8")
    encode = csv_encoder(columns)
    values = iter(values)
    while rows := list(islice(values, batch)):  # a batch taken in C, not row by row
        yield encode(rows).encode("utf-8")


def arrow_type(pa: Any, column: str) -> Any:
    """Return the Parquet column type of an export column (nulls are typed too)."""
    if column in INT_FIELDS:
        return pa.int64()
    if column == "cost" or column.endswith(".score"):
        return pa.float64()
    return pa.string()


class _Drain:
    """A write-only file for pyarrow whose bytes are taken out as they come (`take`)."""

    closed = False

    def __init__(self) -> None:
        self._chunks: list[bytes] = []
        self._at = 0

    def write(self, data: Any) -> int:
        """Keep the bytes until the next `take`; return how many."""
        chunk = bytes(data)
        self._chunks.append(chunk)
        self._at += len(chunk)
        return len(chunk)

    def tell(self) -> int:
        """Return how many bytes were written in all (the file's offset)."""
        return self._at

    def flush(self) -> None:
        """Nothing to flush: the bytes wait for `take`."""

    def close(self) -> None:
        """Mark the file closed (pyarrow closes it when the writer closes)."""
        self.closed = True

    def take(self) -> bytes:
        """Return the bytes written since the last call and forget them."""
        out = b"".join(self._chunks)
        self._chunks.clear()
        return out


def parquet_chunks(pa: Any, pq: Any, columns: list[str], values: Iterable[list[Any]],
                   batch: int = PARQUET_ROW_GROUP) -> Iterator[bytes]:
    """Yield a Parquet file of streamed rows, one row group of `batch` rows at a time."""
    schema = pa.schema([(c, arrow_type(pa, c)) for c in columns])
    sink = _Drain()
    writer = pq.ParquetWriter(sink, schema)
    values = iter(values)
    groups = 0
    while True:
        held = list(islice(values, batch))  # a row group taken in C, not row by row
        if groups and not held:  # (an empty export has one group of no rows, as before)
            break
        cols = zip(*held, strict=True) if held else ([] for _ in columns)
        arrays = [pa.array(list(col), type=f.type) for col, f in zip(cols, schema, strict=True)]
        writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
        groups += 1
        full = len(held) == batch
        del held, cols, arrays  # before the next group is taken: one group in memory at a time
        yield sink.take()
        if not full:
            break
    writer.close()
    yield sink.take()
