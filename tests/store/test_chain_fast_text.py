"""The row text a content digest hashes, written by msgspec (store.chain._fast_row_text), is
byte for byte the text json writes (`_ROW_JSON`): every string, int, float (NaN, the
infinities, 1e+16, -0.0, 5e-324) and null, keys in order; any other value takes json."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrology.store import chain

_VALUES = st.one_of(st.none(), st.integers(min_value=-(2**63), max_value=2**63 - 1),
                    st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                    st.text(), st.text(alphabet=st.characters(max_codepoint=0x9f)))
_KEYS = st.text(min_size=1, max_size=12)


def _json(table: str, ref: str, values: dict[str, object]) -> bytes:
    return chain._ROW_JSON([table, ref, values]).encode("utf-8")


@settings(max_examples=600, deadline=None)
@given(st.text(max_size=8), st.text(max_size=12), st.dictionaries(_KEYS, _VALUES, max_size=16))
def test_msgspec_row_text_is_jsons(table: str, ref: str, values: dict[str, object]) -> None:
    try:
        want = _json(table, ref, values)
    except UnicodeEncodeError:  # a lone surrogate: json's text cannot be encoded
        assert chain._fast_row_text(table, ref, values) is None
        return
    assert chain._fast_row_text(table, ref, values) == want
    assert chain.row_text(table, ref, values) == want


def test_floats_json_writes_otherwise_than_msgspec_are_written_as_json_does() -> None:
    values = {"a": 1e16, "b": 1e-05, "c": -0.0, "d": math.nan, "e": math.inf, "f": -math.inf,
              "g": 5e-324, "h": 1.5e300, "i": 0.1, "j": 2.0**70}
    fast = chain._fast_row_text("t", "r", values)
    assert fast is not None and fast == _json("t", "r", values)
    assert b"1e+16" in fast and b"NaN" in fast and b"-Infinity" in fast


def test_values_of_other_types_take_json() -> None:
    for odd in (True, b"bytes", [1], {"k": 1}, 1.5j):
        assert chain._fast_row_text("t", "r", {"v": odd}) is None
    assert chain._fast_row_text("t", "r", {1: "int key"}) is None  # type: ignore[dict-item]
    assert chain.row_text("t", "r", {"v": True}) == _json("t", "r", {"v": True})
    class Sub(str):
        pass
    assert chain._fast_row_text("t", Sub("r"), {}) is None
