"""Properties of canonical JSON: every JSON-like record round-trips, non-finite floats included."""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentmetrology.records.canonical import (
    CanonicalError,
    canonical_json,
    decode_json,
    digest,
    from_plain,
    to_plain,
)
from support.props import FINITE_SCALARS, KEYS, json_like, props


def same(a: Any, b: Any) -> bool:
    """Exact equality that also tells NaN == NaN, 1 from 1.0 from True, and -0.0 from 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a)
                                                     == math.copysign(1, b))
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def has_non_finite(x: Any) -> bool:
    """Return True when a non-finite float occurs anywhere in x."""
    if isinstance(x, float):
        return not math.isfinite(x)
    if isinstance(x, list):
        return any(has_non_finite(v) for v in x)
    if isinstance(x, dict):
        return any(has_non_finite(v) for v in x.values())
    return False


def shuffled(x: Any, rng: random.Random) -> Any:
    """Return x with every mapping's insertion order shuffled."""
    if isinstance(x, list):
        return [shuffled(v, rng) for v in x]
    if isinstance(x, dict):
        items = list(x.items())
        rng.shuffle(items)
        return {k: shuffled(v, rng) for k, v in items}
    return x


@props(200)
@given(json_like())
def test_canonical_json_round_trips_exactly(x: Any) -> None:
    data = canonical_json(x)
    back = decode_json(data)
    assert same(back, x)
    assert same(from_plain(to_plain(x, tag_non_finite=True)), x)
    assert canonical_json(back) == data  # re-encoding the decoded record gives the same bytes
    json.loads(data, parse_constant=_refuse)  # strict JSON: no NaN or Infinity literals


def _refuse(name: str) -> None:
    raise AssertionError(f"canonical JSON holds the non-JSON literal {name}")


@props(200)
@given(json_like(), st.integers(0, 2**32))
def test_digest_is_stable_under_round_trip_and_key_order(x: Any, seed: int) -> None:
    d = digest(x)
    assert len(d) == 64
    assert digest(decode_json(canonical_json(x))) == d
    assert digest(shuffled(x, random.Random(seed))) == d
    assert canonical_json(shuffled(x, random.Random(seed))) == canonical_json(x)


@props(200)
@given(json_like())
def test_plain_encoding_refuses_exactly_the_non_finite(x: Any) -> None:
    if has_non_finite(x):
        with pytest.raises(CanonicalError):
            to_plain(x)
    else:
        assert same(to_plain(x), x)


def _tag_free(x: Any) -> bool:
    if isinstance(x, list):
        return all(_tag_free(v) for v in x)
    if isinstance(x, dict):
        if len(x) == 1 and next(iter(x)) in ("$float", "$literal"):
            return False
        return all(_tag_free(v) for v in x.values())
    return True


@props(200)
@given(json_like(FINITE_SCALARS))
def test_finite_tag_free_data_has_plain_json_bytes(x: Any) -> None:
    # Pinned digests do not move: finite data encodes exactly as plain sorted JSON.
    if not _tag_free(x):
        return
    plain = json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                       allow_nan=False).encode()
    assert canonical_json(x) == plain


@pytest.mark.parametrize(("value", "tag"), [
    (math.nan, b'{"$float":"nan"}'), (math.inf, b'{"$float":"inf"}'),
    (-math.inf, b'{"$float":"-inf"}'),
    ({"$float": "nan"}, b'{"$literal":{"$float":"nan"}}'),
    ({"$literal": {}}, b'{"$literal":{"$literal":{}}}'),
])
def test_tags_are_the_documented_bytes(value: Any, tag: bytes) -> None:
    assert canonical_json(value) == tag
    assert same(decode_json(tag), value)


def _dumps(x: Any) -> bytes:
    return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


# Texts that favour what JSON escapes: quotes, backslashes, every control character, DEL,
# line and paragraph separators, and characters beyond the BMP.
ESCAPY = st.text(st.one_of(st.sampled_from(['"', "\\", "/", "\x7f", "\u2028", "\u2029",
                                            "\ufeff", "\U0001f600", "é", "\n"]),
                           st.characters(max_codepoint=0x1F),
                           st.characters(blacklist_categories=("Cs",))), max_size=40)


@props(400)
@given(st.dictionaries(st.one_of(KEYS, ESCAPY), ESCAPY, max_size=5))
def test_text_mappings_encode_exactly_as_json_dumps(x: dict[str, str]) -> None:
    # The msgspec path for str -> str mappings (a submission) writes json.dumps's bytes.
    if len(x) == 1 and next(iter(x)) in ("$float", "$literal"):
        assert canonical_json(x) == b'{"$literal":' + _dumps(x) + b"}"
    else:
        assert canonical_json(x) == _dumps(x)
    assert decode_json(canonical_json(x)) == x


def test_text_mapping_of_every_code_point_matches_json_dumps() -> None:
    chars = [chr(c) for c in range(0x3000) if not 0xD800 <= c < 0xE000]
    text = "".join(chars)
    x = {"data_jsonl": text, "metadata_json": text[::-1], "é": "\x00", "\x01": "", "Z": "a"}
    assert canonical_json(x) == _dumps(x)


def test_text_mapping_with_a_lone_surrogate_is_refused_as_json_dumps_refuses_it() -> None:
    with pytest.raises(UnicodeEncodeError):
        _dumps({"a": "\ud800"})
    with pytest.raises(UnicodeEncodeError):
        canonical_json({"a": "\ud800"})


class _Str(str):
    """A str subclass: encoded as the text it holds."""


class _Int(int):
    """An int subclass: encoded as the number it holds."""


class _List(list):  # type: ignore[type-arg]
    """A list subclass: encoded as a list."""


@dataclass(frozen=True, slots=True)
class _Pair:
    """A record of two values: encoded as {"first": ..., "second": ...}."""

    first: Any
    second: Any


def dressed(x: Any, rng: random.Random) -> Any:
    """Return x with its containers and scalars swapped for look-alikes that encode the same.

    Dicts become read-only mappings or pairs of records, lists tuples or list subclasses,
    strings and ints subclasses, floats numpy scalars: every path of `to_plain` but the
    exact-type shortcuts.
    """
    pick = rng.randrange(3)
    if isinstance(x, dict):
        inner = {k: dressed(v, rng) for k, v in x.items()}
        if pick == 0 and set(x) == {"first", "second"}:
            return _Pair(inner["first"], inner["second"])
        return MappingProxyType(inner) if pick else inner
    if isinstance(x, list):
        items = [dressed(v, rng) for v in x]
        return (tuple(items), _List(items), items)[pick]
    if isinstance(x, bool) or x is None:
        return x
    if isinstance(x, str):
        return _Str(x) if pick else x
    if isinstance(x, int):
        return _Int(x) if pick else x
    if isinstance(x, float):
        return np.float64(x) if pick else x
    return x


PAIRS = st.recursive(
    st.one_of(FINITE_SCALARS, st.floats()),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(KEYS, inner, max_size=3),
                            st.fixed_dictionaries({"first": inner, "second": inner})),
    max_leaves=20)


@props(200)
@given(st.one_of(json_like(), PAIRS), st.integers(0, 2**32))
def test_look_alike_types_encode_as_the_plain_data_they_hold(x: Any, seed: int) -> None:
    # to_plain takes a shortcut for exact built-in types and remembers each record type's
    # fields: neither may change what any value encodes to.
    wrapped = dressed(x, random.Random(seed))
    assert canonical_json(wrapped) == canonical_json(x)
    assert _dumps(to_plain(wrapped, tag_non_finite=True)) == canonical_json(x)
    if has_non_finite(x):
        with pytest.raises(CanonicalError, match="non-finite"):
            to_plain(wrapped)
    else:
        assert _dumps(to_plain(wrapped)) == _dumps(to_plain(x))


def test_a_record_type_encodes_the_same_the_first_time_and_after() -> None:
    @dataclass
    class Fresh:
        b: Any
        a: Any = field(default_factory=list)

    first = canonical_json(Fresh({"$float": 1}, (math.nan,)))
    assert first == b'{"a":[{"$float":"nan"}],"b":{"$literal":{"$float":1}}}'
    assert canonical_json(Fresh({"$float": 1}, (math.nan,))) == first
    assert to_plain(Fresh(1)) == {"b": 1, "a": []}  # declaration order, as dataclasses.fields
    with pytest.raises(CanonicalError, match=r"mapping key 1 is not a string"):
        canonical_json(Fresh({1: 2}))
