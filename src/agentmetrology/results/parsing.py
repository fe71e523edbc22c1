"""Parse the text formats of a results table (CSV, TSV, JSON Lines, a JSON array) from a text
stream, line by line where the format allows, each line capped in length before it is parsed.

Every way the text can be wrong ends as a TableError naming the source and line: a JSON object
that names a key twice too (a JSON reader keeps the last value and drops the others silently),
and a CSV row with more or fewer cells than the header (a reader drops or invents cells).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from typing import Any, TextIO

from agentmetrology.edges.json_keys import KeyMarks, RepeatedKeys, SharedKeyMarks, names_twice
from agentmetrology.records.names import repeated
from agentmetrology.results.errors import TableError
from agentmetrology.results.limits import MAX_DEPTH

Rows = tuple[list[dict[str, Any]], list[int]]


def not_utf8(source: str) -> TableError:
    """Return the error for text that is not UTF-8."""
    return TableError(f"{source}: not UTF-8 text (for Parquet use a .parquet suffix)")


def _read_line(stream: TextIO, source: str, limit: int) -> str:
    """Return the stream's next line, read no further than `limit` characters."""
    try:
        return stream.readline(limit)
    except UnicodeDecodeError:
        raise not_utf8(source) from None


def physical_lines(stream: TextIO, source: str, max_line_chars: int) -> Iterator[str]:
    """Yield the stream's lines with their endings; refuse one longer than `max_line_chars`."""
    number = 0
    while line := _read_line(stream, source, max_line_chars + 2):  # + room for "\r\n"
        number += 1
        if len(line.rstrip("\r\n")) > max_line_chars:
            raise TableError(
                f"{source} line {number}: longer than {max_line_chars:,} characters, the "
                "limit of one row; a results table has one run per line"
            )
        yield line


def _check_cells(row: dict[str | None, Any], columns: int, source: str, line: int) -> None:
    """Raise TableError unless a CSV row has one cell per header column: DictReader keeps the
    extra cells of a longer row under the key None and fills a shorter one with None."""
    extra = len(row.get(None) or ())
    missing = sum(value is None for key, value in row.items() if key is not None)
    if extra or missing:
        cells = columns + extra - missing
        raise TableError(f"{source} line {line}: {cells} cell{'s' * (cells != 1)}, but the "
                         f"header names {columns} columns; give each row one cell per column "
                         "(quote a cell that holds the delimiter)")


def parse_csv(stream: TextIO, source: str, delimiter: str, max_line_chars: int) -> Rows:
    """Parse delimited text with a header row; line numbers count the header as line 1."""
    lines_in = physical_lines(stream, source, max_line_chars)
    reader = csv.DictReader(lines_in, delimiter=delimiter)
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    try:
        header = reader.fieldnames or []
        if len(set(header)) != len(header):  # DictReader keeps the last cell of a repeated name
            twice = repeated(header)
            raise TableError(f"{source} line 1: the header names {', '.join(map(repr, twice))} "
                             "more than once; name each column once")
        for row in reader:
            _check_cells(row, len(header), source, reader.line_num)
            rows.append(row)
            lines.append(reader.line_num)
    except csv.Error as exc:
        raise TableError(f"{source} line {reader.line_num}: malformed CSV ({exc})") from None
    if not reader.fieldnames:
        raise TableError(f"{source}: no header row")
    return rows, lines


def _loads(text: str, source: str, line: int | None,
           decoder: json.JSONDecoder | None = None) -> Any:
    """Parse JSON text, turning every way it can fail into a TableError with the line.

    `decoder`: one made once for many lines (`_line_decoder`), as `json.loads` would make one
    for each (about a fifth of a short row's parse); it parses exactly as `json.loads` does.
    """
    try:
        if decoder is None:
            return json.loads(text, object_pairs_hook=KeyMarks())
        if text.startswith("\ufeff"):  # json.loads refuses a BOM before decoding; so do we
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise TableError(
            f"{source} line {line or exc.lineno}: not valid JSON ({exc.msg})"
        ) from None
    except RecursionError:
        where = "?" if line is None else str(line)
        raise TableError(
            f"{source} line {where}: JSON nested too deeply to read "
            f"(rows may nest at most {MAX_DEPTH} levels); flatten the row"
        ) from None
    except ValueError as exc:  # e.g. an integer literal beyond Python's digit limit
        where = "?" if line is None else str(line)
        raise TableError(f"{source} line {where}: unreadable JSON number ({exc})") from None


def _check_text(text: str, source: str, line: int) -> None:
    """Raise TableError if a JSON string holds a lone surrogate (a `\\ud800` escape alone)."""
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        raise TableError(
            f"{source} line {line}: a JSON string holds the lone surrogate \\u{code:04x}, "
            "which is not a character; write the character itself or a complete pair"
        ) from None


def _check_row(obj: Any, source: str, line: int, escapes: bool) -> None:
    """Raise TableError if `obj` names a key twice in one object, nests deeper than MAX_DEPTH
    levels or (with `escapes`, when the text had a \\u escape) holds a lone surrogate in a key
    or a string."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, RepeatedKeys):  # marked by the parse (`_loads`)
            raise TableError(f"{source} line {line}: {names_twice(node.twice)} (only the last "
                             "value would be read); give each key once")
        if depth > MAX_DEPTH:
            raise TableError(
                f"{source} line {line}: JSON nested more than {MAX_DEPTH} levels deep; "
                "flatten the row"
            )
        children = list(node.values()) if isinstance(node, dict) else node
        if escapes:
            texts = [*node, *children] if isinstance(node, dict) else children
            for text in texts:
                if isinstance(text, str):
                    _check_text(text, source, line)
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))


def parse_jsonl(stream: TextIO, source: str, max_line_chars: int) -> Rows:
    """Parse JSON Lines: one object per non-blank line, read one line at a time."""
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    marks = SharedKeyMarks()  # a column's name held once, not once a row
    decoder = json.JSONDecoder(object_pairs_hook=marks)
    for number, line in enumerate(physical_lines(stream, source, max_line_chars), start=1):
        if not line.strip():
            continue
        marks.count = 0
        obj = _loads(line, source, number, decoder)
        if not isinstance(obj, dict):
            raise TableError(f"{source} line {number}: expected a JSON object per line")
        escapes = "\\u" in line
        # The walk finds nothing to refuse in a row that named no key twice (the marks say
        # so), has no \u escape (no lone surrogate) and has too few brackets to nest past
        # MAX_DEPTH (brackets in strings only count too many): most rows, about a fifth of
        # their read.
        if marks.count or escapes or line.count("{") + line.count("[") > MAX_DEPTH:
            _check_row(obj, source, number, escapes)
        rows.append(obj)
        lines.append(number)
    return rows, lines


def parse_json_array(stream: TextIO, source: str) -> Rows:
    """Parse a JSON array of objects (read whole: JSON cannot be parsed in pieces with the
    standard library); 'line numbers' are 1-based element positions."""
    try:
        text = stream.read()
    except UnicodeDecodeError:
        raise not_utf8(source) from None
    data = _loads(text, source, None)
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise TableError(f"{source}: expected a JSON array of objects")
    escapes = "\\u" in text
    for position, item in enumerate(data, start=1):
        _check_row(item, source, position, escapes)
    return list(data), list(range(1, len(data) + 1))
