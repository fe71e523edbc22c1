"""`store.verify_json.loads` reads every text as `json.loads` does: the same value, type for
type (1, 1.0 and True differ; -0.0 is kept), or the same error; and `decode_canonical` as
`records.canonical.decode_json` does. Texts are generated, then edited one character at a
time (what a forger's edit of a sealed text looks like)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrology.records.canonical import canonical_json, decode_json
from agentmetrology.store.verify_json import decode_canonical, loads

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.text(),
                     st.floats(allow_nan=True, allow_infinity=True))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12)
_EDITS = st.sampled_from(["", "\\", '"', ",", "]", "}", "\x01", "\ud800", "NaN", "1e400",
                         "-", "0", ".", "e", " ", "\\ud800", "\\u00", "\ufeff", "$"])


def _typed(value: Any) -> Any:
    """A value with every scalar's type beside it (NaN by its text: NaN != NaN)."""
    if isinstance(value, dict):
        return ("dict", [(k, _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(v) for v in value])
    if isinstance(value, float):
        return ("float", repr(value) if math.isnan(value) else value.hex())
    return (type(value).__name__, value)


def _outcome(read: Any, text: str) -> Any:
    try:
        return ("ok", _typed(read(text)))
    except ValueError as exc:
        return ("error", type(exc).__name__, str(exc))


@settings(max_examples=500, deadline=None)
@given(_VALUES, st.integers(min_value=0), _EDITS, st.booleans())
def test_loads_reads_as_json_does(value: Any, at: int, edit: str, canonical: bool) -> None:
    text = canonical_json(value).decode("utf-8") if canonical else json.dumps(value)
    cut = at % (len(text) + 1)
    for t in (text, text[:cut] + edit + text[cut:], text[:cut] + edit + text[cut + 1:]):
        assert _outcome(loads, t) == _outcome(json.loads, t)
        assert _outcome(decode_canonical, t) == _outcome(decode_json, t)


@pytest.mark.parametrize("text", ['NaN', '[Infinity, -Infinity]', '1e400', '"\\ud800"',
                                  '"\ud800"', '{"a": 1, "a": 2.0}', '-0.0', '1' * 40,
                                  '{"$float": "nan"}', '"\\u0024float"', '[1,]', ''])
def test_the_texts_msgspec_refuses_or_reads_otherwise(text: str) -> None:
    assert _outcome(loads, text) == _outcome(json.loads, text)
    assert _outcome(decode_canonical, text) == _outcome(decode_json, text)
