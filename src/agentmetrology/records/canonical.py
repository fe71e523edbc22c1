"""Canonical JSON encoding and sha256 digests of records.

Canonical JSON is sorted keys, no whitespace, UTF-8, floats via repr. JSON has no NaN or
Infinity, yet anything an agent or client sends must be recorded, malformed or not (a tool call
`fetch_page {"page": NaN}` is evidence). So a non-finite float is encoded as a tagged object:

    NaN -> {"$float": "nan"}    +Infinity -> {"$float": "inf"}    -Infinity -> {"$float": "-inf"}

A mapping that would be mistaken for a tag (its only key is "$float" or "$literal") is escaped as
{"$literal": mapping}, so every value round-trips exactly:
`decode_json(canonical_json(x)) == from_plain(to_plain(x, tag_non_finite=True))` equals the
plain form of x with its non-finite floats restored. Finite data never contains a tag, so its
bytes and digests are exactly those of plain canonical JSON (pinned digests do not move).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

import msgspec

FLOAT_TAG = "$float"
LITERAL_TAG = "$literal"
_TAGS = frozenset({FLOAT_TAG, LITERAL_TAG})
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


class CanonicalError(ValueError):
    """Raised when a value cannot be encoded canonically (e.g. an unknown type)."""


def _float_tag(value: float) -> dict[str, str]:
    name = "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return {FLOAT_TAG: name}


def to_plain(value: Any, *, tag_non_finite: bool = False) -> Any:
    """Return `value` as plain JSON data (dicts, lists, str, int, finite float, bool, None).

    By default a non-finite float raises CanonicalError: analyses use this to prove that an
    undefined number never reaches a report as a number. With `tag_non_finite` (what records
    and `canonical_json` use) it becomes a tagged object instead (see the module docstring).
    """
    # Exact built-in types first: an episode is ~10^4 of them, and this walk is most of what
    # digesting one costs. Anything else (subclasses, enums, dataclasses, numpy) goes through
    # the general cases below, in the same order as always.
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float and math.isfinite(value):
        return value
    if kind is dict:
        return _plain_mapping(value, tag_non_finite)
    if kind is list or kind is tuple:
        return [to_plain(v, tag_non_finite=tag_non_finite) for v in value]
    fields = _FIELDS.get(kind)
    if fields is not None:
        return {name: to_plain(getattr(value, name), tag_non_finite=tag_non_finite)
                for name in fields}
    return _to_plain_general(value, tag_non_finite)


# Field names of each dataclass type met so far, in declaration order (`dataclasses.fields`
# is the slow part of converting a record; the fields of a class never change).
_FIELDS: dict[type, tuple[str, ...]] = {}


def _plain_mapping(value: Mapping[Any, Any], tag_non_finite: bool) -> dict[str, Any]:
    """Return a mapping with string keys as a plain dict (tag look-alikes escaped)."""
    out: dict[str, Any] = {}
    for k, v in value.items():
        if not isinstance(k, str):
            raise CanonicalError(f"mapping key {k!r} is not a string")
        out[k] = to_plain(v, tag_non_finite=tag_non_finite)
    if tag_non_finite and len(out) == 1 and next(iter(out)) in _TAGS:
        return {LITERAL_TAG: out}  # a mapping that looks like a tag is escaped
    return out


def _to_plain_general(value: Any, tag_non_finite: bool) -> Any:
    """Return `to_plain(value)` for any value, by isinstance checks in their documented order."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        if tag_non_finite:
            return _float_tag(value)
        raise CanonicalError(f"non-finite float {value!r} cannot be encoded canonically")
    if isinstance(value, enum.Enum):
        return to_plain(value.value, tag_non_finite=tag_non_finite)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # A field marked {"canonical": False} is carried in memory only (e.g. an episode's
        # transcript, stored in blobs of its own and bound by digest).
        names = tuple(f.name for f in dataclasses.fields(value)
                      if f.metadata.get("canonical", True))
        _FIELDS[type(value)] = names
        return {name: to_plain(getattr(value, name), tag_non_finite=tag_non_finite)
                for name in names}
    if isinstance(value, Mapping):
        return _plain_mapping(value, tag_non_finite)
    if isinstance(value, list | tuple):
        return [to_plain(v, tag_non_finite=tag_non_finite) for v in value]
    tolist = getattr(value, "tolist", None)  # numpy scalars and arrays
    if callable(tolist):
        return to_plain(tolist(), tag_non_finite=tag_non_finite)
    raise CanonicalError(f"cannot encode {type(value).__name__} canonically")


def from_plain(value: Any) -> Any:
    """Return plain JSON data with tagged non-finite floats and escaped mappings restored."""
    if isinstance(value, list):
        return [from_plain(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((k, v),) = value.items()
        if k == FLOAT_TAG and isinstance(v, str) and v in _NON_FINITE:
            return _NON_FINITE[v]
        if k == LITERAL_TAG and isinstance(v, dict):
            return {kk: from_plain(vv) for kk, vv in v.items()}
    return {k: from_plain(v) for k, v in value.items()}


# A mapping of strings to strings (a submission: three texts of many kilobytes) is written by
# msgspec, which escapes exactly what json.dumps(ensure_ascii=False) escapes and sorts str keys
# in code-point order, so the bytes are the same (tests/records/test_canonical_properties.py).
_SORTED_TEXT = msgspec.json.Encoder(order="sorted")


def _text_mapping(value: Any) -> bool:
    """Return True for a plain dict of str to str that is not mistaken for a tag."""
    if type(value) is not dict or (len(value) == 1 and next(iter(value)) in _TAGS):
        return False
    return all(type(k) is str and type(v) is str for k, v in value.items())


def canonical_json(value: Any) -> bytes:
    """Return canonical UTF-8 JSON bytes: sorted keys, no whitespace, non-finite floats tagged."""
    if _text_mapping(value):
        return _SORTED_TEXT.encode(value)
    return json.dumps(
        to_plain(value, tag_non_finite=True), sort_keys=True, separators=(",", ":"),
        ensure_ascii=False, allow_nan=False,
    ).encode("utf-8")


def may_hold_tag(data: bytes | str) -> bool:
    """Return False when canonical JSON text `data` certainly holds no tag: no `$` and no
    `\\u00` escape (which could spell one). Text that holds none decodes to what json.loads
    gives, so decode_json (and faster decoders that must read as it does) skip the tag walk."""
    if isinstance(data, bytes):
        return b"$" in data or b"\\u00" in data
    return "$" in data or "\\u00" in data


def decode_json(data: bytes | str) -> Any:
    """Return canonical JSON decoded, with tagged non-finite floats restored (inverse of above)."""
    # The walk over the decoded value is skipped for text that holds no tag (an episode's
    # events are most of its text; an assessment's text is read from the ledger as a str).
    return from_plain(json.loads(data)) if may_hold_tag(data) else json.loads(data)


def sha256_hex(data: bytes | str) -> str:
    """Return the sha256 hex digest of bytes (str is UTF-8 encoded first)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def digest(value: Any) -> str:
    """Return the sha256 hex digest of the canonical JSON of `value`."""
    return sha256_hex(canonical_json(value))
