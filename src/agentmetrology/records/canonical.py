"""Canonical JSON encoding and sha256 digests of records."""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any


class CanonicalError(ValueError):
    """Raised when a value cannot be encoded canonically (e.g. NaN or an unknown type)."""


def to_plain(value: Any) -> Any:
    """Return `value` as plain JSON data (dicts, lists, str, int, float, bool, None)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CanonicalError(f"non-finite float {value!r} cannot be encoded canonically")
        return value
    if isinstance(value, enum.Enum):
        return to_plain(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise CanonicalError(f"mapping key {k!r} is not a string")
            out[k] = to_plain(v)
        return out
    if isinstance(value, list | tuple):
        return [to_plain(v) for v in value]
    tolist = getattr(value, "tolist", None)  # numpy scalars and arrays
    if callable(tolist):
        return to_plain(tolist())
    raise CanonicalError(f"cannot encode {type(value).__name__} canonically")


def canonical_json(value: Any) -> bytes:
    """Return canonical UTF-8 JSON bytes: sorted keys, no whitespace, no NaN/Infinity."""
    return json.dumps(
        to_plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
        allow_nan=False,
    ).encode("utf-8")


def sha256_hex(data: bytes | str) -> str:
    """Return the sha256 hex digest of bytes (str is UTF-8 encoded first)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def digest(value: Any) -> str:
    """Return the sha256 hex digest of the canonical JSON of `value`."""
    return sha256_hex(canonical_json(value))
