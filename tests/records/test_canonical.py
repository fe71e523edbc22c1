import math
from typing import Any

import pytest

from agentmetrology.records import (
    Assessment,
    Event,
    canonical_json,
    digest,
    to_plain,
)
from agentmetrology.records.canonical import CanonicalError, decode_json
from agentmetrology.runtime.rng import rng


def test_canonical_json_sorts_keys_and_is_compact() -> None:
    assert canonical_json({"b": 1, "a": [1.5, "é"]}) == '{"a":[1.5,"é"],"b":1}'.encode()


def test_canonical_json_tags_non_finite_floats_and_rejects_non_string_keys() -> None:
    assert canonical_json({"x": math.nan, "y": [math.inf, -math.inf]}) == (
        b'{"x":{"$float":"nan"},"y":[{"$float":"inf"},{"$float":"-inf"}]}')
    with pytest.raises(CanonicalError, match="key"):
        canonical_json({1: 2})


def test_to_plain_stays_strict_unless_asked_to_tag() -> None:
    # Analyses rely on to_plain raising: an undefined number must never reach a report.
    with pytest.raises(CanonicalError, match="non-finite"):
        to_plain({"x": math.nan})
    assert to_plain({"x": math.nan}, tag_non_finite=True) == {"x": {"$float": "nan"}}


def test_finite_digests_do_not_move() -> None:
    # Pinned before non-finite tagging existed: finite data encodes exactly as before.
    assert digest({"b": 1, "a": [1.5, "é", None, True, {"$x": -0.0}]}) == (
        "5ca4fe392facc9aaa92a30a764593e8ff888dce1e6a62bbd925376955e502876")


def test_tag_lookalike_mappings_are_escaped_and_round_trip() -> None:
    for value in ({"$float": "nan"}, {"$literal": {"$float": "inf"}}, {"$float": math.nan},
                  {"$float": "nan", "other": 1}):
        encoded = canonical_json(value)
        back = decode_json(encoded)
        assert _same(back, value), (value, encoded)
        assert _same(decode_json(encoded.decode("utf-8")), value)  # a str (a ledger's text)
    assert canonical_json({"$float": "nan"}) == b'{"$literal":{"$float":"nan"}}'
    assert canonical_json({"$float": "nan", "other": 1}) == b'{"$float":"nan","other":1}'


def _same(a: Any, b: Any) -> bool:
    """Equality that treats NaN as equal to NaN (and tuples as lists)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


_SPECIAL = (math.nan, math.inf, -math.inf, 0.0, -0.0, 1e308, 5e-324, 0.1)
_KEYS = ("$float", "$literal", "page", "a", "é", "")


def _random_value(g: Any, depth: int) -> Any:
    kind = int(g.integers(0, 8 if depth < 4 else 5))
    if kind == 0:
        return _SPECIAL[int(g.integers(0, len(_SPECIAL)))]
    if kind == 1:
        return float(g.normal()) * 10.0 ** int(g.integers(-5, 6))
    if kind == 2:
        return int(g.integers(-1000, 1000))
    if kind == 3:
        return ["nan", "inf", "-inf", "x", None, True][int(g.integers(0, 6))]
    if kind == 4:
        return None
    if kind == 5:
        return [_random_value(g, depth + 1) for _ in range(int(g.integers(0, 4)))]
    n = int(g.integers(0, 4))
    return {_KEYS[int(g.integers(0, len(_KEYS)))]: _random_value(g, depth + 1) for _ in range(n)}


def test_any_record_with_non_finite_numbers_round_trips() -> None:
    # Property test over 2000 seeded random records, plus an Event carrying NaN arguments.
    g = rng(7, "canonical-round-trip")
    for i in range(2000):
        value = _random_value(g, 0)
        encoded = canonical_json(value)
        assert _same(decode_json(encoded), value), (i, value, encoded)
        assert _same(decode_json(encoded.decode("utf-8")), value), (i, value, encoded)
        assert canonical_json(decode_json(encoded)) == encoded  # stable and deterministic
        assert digest(value) == digest(decode_json(encoded))
    ev = Event(0, "agent", "tool_call", "fetch_page", {"page": math.nan}, None, 0.0)
    assert b'"args":{"page":{"$float":"nan"}}' in canonical_json(ev)
    assert math.isnan(decode_json(canonical_json(ev))["args"]["page"])


def test_dataclasses_encode_by_field() -> None:
    ev = Event(0, "agent", "tool_call", "fetch_page", {"page": 1}, {"rows": []}, 0.0)
    assert digest(ev) == digest({"seq": 0, "actor": "agent", "kind": "tool_call",
                                 "name": "fetch_page", "args": {"page": 1},
                                 "result": {"rows": []}, "t": 0.0})
    a = Assessment("s", "1", "PASS", 1.0)
    assert b'"status":"PASS"' in canonical_json(a)


def test_a_tag_spelt_with_json_escapes_is_still_decoded_from_bytes() -> None:
    # decode_json skips the tag walk for bytes with no `$` and no `\u00`: a `$` written as the
    # escape \u0024 must still reach the walk, or the tag comes back as a plain mapping.
    assert math.isnan(decode_json(b'{"\\u0024float":"nan"}'))
    assert decode_json(b'{"x":{"\\u0024float":"-inf"}}') == {"x": -math.inf}
    assert decode_json(b'{"\\u0024literal":{"$float":"inf"}}') == {"$float": "inf"}
    assert decode_json(b'{"a":"\\u00e9"}') == {"a": "\u00e9"}  # an escape without a tag
    assert decode_json(b'{"a":1}') == {"a": 1}
