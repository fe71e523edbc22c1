"""Recognising a data.jsonl made of the generated rows' own lines, so that it is not parsed.

The harness and the scripted agents write data.jsonl with msgspec's compact encoder, one row
dict per line, keys in ROW_FIELDS order; a complete, clean answer (every large task's usual
submission) is therefore byte for byte the encoding of the generated rows in generation order,
and an answer that reorders, repeats or leaves out rows (duplicates kept, drifted pages, a spent
budget) is still made of those rows' lines. Decoding such a line gives back its row exactly
(every generated value is an int or an ASCII str, which round-trip through JSON unchanged, key
order included), so the parse and its columns are known without reading the text: a fresh dict
per line, and the generated columns (gathered in the lines' order). Any line that is not one of
them, one byte apart, and the text is parsed as before.
tests/envs/comtrade/scoring/test_genuine.py checks both against the parse for every task.
"""

from __future__ import annotations

import operator
from functools import lru_cache
from typing import Any

import msgspec

from agentmetrology.envs.comtrade.encoded import rows_of as encoded_rows
from agentmetrology.envs.comtrade.generator import ROW_FIELDS, record_ids, row_dicts, row_tuples
from agentmetrology.envs.comtrade.scoring.columns import Columns, remember_columns
from agentmetrology.envs.comtrade.scoring.submission import ParsedLines, Submission
from agentmetrology.envs.comtrade.tasks import Profile

# The encoder payload.encode_payload writes data.jsonl with (compact, insertion key order).
_ENCODER = msgspec.json.Encoder()
# A generated column holds one type; a value of any other type might not round-trip exactly.
_EXACT_TYPES = (int, str)
# Every generated row's line starts with the query's fields, the same on every line.
_FIRST_VARYING = b',"tradeValue":'


def _known(values: tuple[dict[str, Any], ...], columns: tuple[tuple[Any, ...], ...],
           truth: tuple[tuple[Any, ...], ...]) -> ParsedLines:
    """Return the parse of lines known to decode to `values`, remembering their columns
    (`truth`'s, gathered by the lines' row indices)."""
    parsed = ParsedLines(values, 0)
    remember_columns(values, Columns(ROW_FIELDS, columns,
                                     tuple(frozenset((type(c[0]),)) for c in columns), truth))
    return parsed


def genuine_parse(text: str, task_id: str, seed: int | None, profile: Profile,
                  columns: tuple[tuple[Any, ...], ...]) -> ParsedLines | None:
    """Return parse_jsonl(text) without parsing when every line of text is a generated row's
    line, else None; `columns` are the generated rows as columns (ground_truth._truth_columns)."""
    rows = row_tuples(task_id, seed, profile)
    if not rows or not text.isascii() or any(type(c[0]) not in _EXACT_TYPES for c in columns):
        return None
    first = _ENCODER.encode_lines(row_dicts(rows[:1]))
    # The shared start of every generated line: most other texts fail here, before any work
    if not text.startswith(first[:first.index(_FIRST_VARYING)].decode("ascii")):
        return None
    data = text.encode("ascii")
    # The rows the encoder wrote this very text from name the lines' rows (a guess: they are
    # the agent's and may have changed since): then only the lines' own rows are made and
    # encoded, and the bytes decide. Rows in generation order take the path below.
    noted = _record_ids(encoded_rows(text))
    at = None if noted == columns[_RID_AT] else _hinted_rows(noted, id_index(task_id))
    if at is not None:
        picked = list(map(rows.__getitem__, at))
        values = row_dicts(picked)  # a dict per line
        if _ENCODER.encode_lines(values) == data:
            return _known(tuple(values), _transposed(picked), columns)
    values = row_dicts(rows)
    encoded = _ENCODER.encode_lines(values)
    if encoded == data:  # the whole answer, in order: the generated rows themselves
        return _known(tuple(values), columns, columns)
    if not data.endswith(b"\n"):
        return None
    at = _lines_at(data, encoded.split(b"\n"), len(rows))
    if at is None:
        return None
    picked = list(map(rows.__getitem__, at))
    if len(set(at)) == len(at):  # each row's line once: its dict, made above, serves alone
        return _known(tuple(map(values.__getitem__, at)), _transposed(picked), columns)
    # a dict per line
    return _known(tuple(row_dicts(picked)), _transposed(picked), columns)


def _transposed(rows: list[tuple[Any, ...]]) -> tuple[tuple[Any, ...], ...]:
    """Return the columns of generated rows (at least one): the generated columns gathered at
    those rows. zip moves the values in C; an itemgetter per column looks each one up."""
    return tuple(zip(*rows, strict=True))


def _lines_at(data: bytes, lines: list[bytes], n: int) -> list[int] | None:
    """Return the generated row of each line of `data` (`lines`: the generated rows' lines,
    split, n of them), or None when some line is not one of them, byte for byte."""
    # Bytes throughout: the pieces are compared with the generated lines as encoded, so
    # neither side is decoded, and int() reads the digits of a bytes slice as of a str
    pieces = data.split(b"\n")
    pieces.pop()  # the empty piece after the final newline
    at = _row_numbers(pieces, n)
    # Each piece must be the very line of the row its id names: the guess is checked here,
    # byte for byte, so a piece that only looks like a row's (another value, another seed,
    # a blank) fails, and the text is parsed.
    return at if at is not None and list(map(lines.__getitem__, at)) == pieces else None


@lru_cache(maxsize=32)
def id_index(task_id: str) -> dict[str, int]:
    """Return each generated record id's row number (the same for every seed and profile)."""
    return {rid: i for i, rid in enumerate(record_ids(task_id))}


_RID = operator.itemgetter("record_id")
_RID_AT = ROW_FIELDS.index("record_id")


def _record_ids(rows: list[Any] | None) -> tuple[Any, ...] | None:
    """Return the record ids of the rows (the encoder's, see encoded.rows_of), or None without
    rows or when one is not a dict with a record id."""
    if not rows:
        return None
    try:
        return tuple(map(_RID, rows))
    except (KeyError, TypeError):
        return None


def _hinted_rows(ids: tuple[Any, ...] | None, index: dict[str, int]) -> list[int] | None:
    """Return the row number of each record id (`index`: id_index of the task), or None
    without ids or when one is no row's (or unhashable)."""
    if ids is None:
        return None
    # A dict lookup per row costs about half of reading the id's six digits as an int.
    try:
        return list(map(index.__getitem__, ids))
    except (KeyError, TypeError):
        return None


# A generated row's line ends with its record id `{task_id}-{i:06d}` and '"}': the six
# digits name the row the line should be (record_ids and ROW_FIELDS, record_id last).
_DIGITS = operator.itemgetter(slice(-8, -2))


def _row_numbers(pieces: list[bytes], n: int) -> list[int] | None:
    """Return the row number each piece's record id names, or None when one names none of the
    n rows: a guess, cheaper than looking each whole line up, that the caller checks."""
    if not pieces:
        return None
    try:
        at = list(map(int, map(_DIGITS, pieces)))
    except ValueError:  # not digits where a generated line has them
        return None
    return at if min(at) >= 0 and max(at) < n else None


def adopt_genuine(submission: Submission, task_id: str, seed: int | None, profile: Profile,
                  columns: tuple[tuple[Any, ...], ...]) -> bool:
    """Give the submission its parse without parsing when data.jsonl is made of the generated
    rows' lines; return True when it did (a parse already made, or another text, is left
    alone)."""
    text = submission.data_jsonl
    if text is None or submission.parse_cached():
        return False
    parsed = genuine_parse(text, task_id, seed, profile, columns)
    if parsed is None:
        return False
    submission.adopt_parse(parsed)
    return True
