"""Recognising a data.jsonl that is exactly the generated rows' own text, so it is not parsed.

The harness and the scripted agents write data.jsonl with msgspec's compact encoder, one row
dict per line, keys in ROW_FIELDS order; a complete, clean answer (every large task's usual
submission) is therefore byte for byte the encoding of the generated rows in generation order.
Decoding that text gives back those rows exactly (every generated value is an int or an ASCII
str, which round-trip through JSON unchanged, key order included), so the parse and its columns
are known without reading the text: fresh row dicts, and the generated columns themselves.
tests/envs/comtrade/scoring/test_genuine.py checks both against the parse for every task.
"""

from __future__ import annotations

from typing import Any

import msgspec

from agentmetrology.envs.comtrade.generator import ROW_FIELDS, row_dicts, row_tuples
from agentmetrology.envs.comtrade.scoring.columns import Columns, remember_columns
from agentmetrology.envs.comtrade.scoring.submission import ParsedLines, Submission
from agentmetrology.envs.comtrade.tasks import Profile

# The encoder payload.encode_payload writes data.jsonl with (compact, insertion key order).
_ENCODER = msgspec.json.Encoder()
# A generated column holds one type; a value of any other type might not round-trip exactly.
_EXACT_TYPES = (int, str)


def genuine_parse(text: str, task_id: str, seed: int | None, profile: Profile,
                  columns: tuple[tuple[Any, ...], ...]) -> ParsedLines | None:
    """Return parse_jsonl(text) without parsing when text is the generated rows' encoding,
    else None; `columns` are the generated rows as columns (ground_truth._truth_columns)."""
    rows = row_tuples(task_id, seed, profile)
    if not rows or not text.isascii() or any(type(c[0]) not in _EXACT_TYPES for c in columns):
        return None
    # Its first and last lines, encoded alone, spare the whole encoding for most other texts
    # (another seed's, a short or a reordered answer).
    ends = row_dicts((rows[0], rows[-1]))
    first, last = (_ENCODER.encode_lines(ends[:1]).decode("utf-8"),
                   _ENCODER.encode_lines(ends[1:]).decode("utf-8"))
    if not (text.startswith(first) and text.endswith(last)):
        return None
    values = row_dicts(rows)
    if _ENCODER.encode_lines(values) != text.encode("ascii"):
        return None
    parsed = ParsedLines(tuple(values), 0)
    remember_columns(parsed.values, Columns(ROW_FIELDS, columns,
                                            tuple(frozenset((type(c[0]),)) for c in columns)))
    return parsed


def adopt_genuine(submission: Submission, task_id: str, seed: int | None, profile: Profile,
                  columns: tuple[tuple[Any, ...], ...]) -> bool:
    """Give the submission its parse without parsing when data.jsonl is the generated rows'
    text; return True when it did (a parse already made, or another text, is left alone)."""
    text = submission.data_jsonl
    if text is None or submission.parse_cached():
        return False
    parsed = genuine_parse(text, task_id, seed, profile, columns)
    if parsed is None:
        return False
    submission.adopt_parse(parsed)
    return True
