"""Canonical encoding of enums, numpy values, str digests and unknown types (records.canonical)."""

from __future__ import annotations

import enum
import hashlib
import math

import numpy as np
import pytest

from agentmetrology.records.canonical import (
    CanonicalError,
    canonical_json,
    sha256_hex,
    to_plain,
)


class Level(enum.Enum):
    L0 = "L0"
    BAD = math.nan


def test_enums_encode_as_their_value_with_the_same_non_finite_rule() -> None:
    assert to_plain(Level.L0) == "L0"
    assert to_plain({"level": Level.BAD}, tag_non_finite=True) == {"level": {"$float": "nan"}}
    with pytest.raises(CanonicalError, match="non-finite float nan"):
        to_plain(Level.BAD)


def test_numpy_scalars_and_arrays_encode_as_plain_numbers() -> None:
    assert to_plain(np.float64(1.5)) == 1.5 and type(to_plain(np.int64(3))) is int
    assert to_plain(np.array([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]
    assert to_plain(np.array([np.inf, 1.0]), tag_non_finite=True) == [{"$float": "inf"}, 1.0]
    with pytest.raises(CanonicalError, match="non-finite"):
        to_plain(np.array([np.nan]))
    assert canonical_json({"x": np.float32(0.5)}) == b'{"x":0.5}'


def test_unknown_types_are_refused_by_name() -> None:
    with pytest.raises(CanonicalError, match=r"^cannot encode object canonically$"):
        to_plain(object())
    with pytest.raises(CanonicalError, match=r"^cannot encode set canonically$"):
        canonical_json({1, 2})


def test_sha256_of_a_str_is_the_sha256_of_its_utf8_bytes() -> None:
    assert sha256_hex("añ") == hashlib.sha256("añ".encode()).hexdigest()
    assert sha256_hex("añ") == sha256_hex(b"a\xc3\xb1")
    assert canonical_json("añ") == b'"a\xc3\xb1"'  # UTF-8, not \\u escapes


@pytest.mark.parametrize("mapping", [{1: "a"}, {"a": "b", 2: "c"}, {None: "x"}])
def test_a_text_valued_mapping_with_a_non_string_key_is_refused(mapping: dict) -> None:
    # A dict of str values takes the fast (msgspec) path only when its keys are str too.
    with pytest.raises(CanonicalError, match="is not a string"):
        canonical_json(mapping)
