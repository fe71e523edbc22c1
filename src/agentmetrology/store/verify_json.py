"""JSON texts of the ledger read by msgspec where it reads them as json does, else by json.

The full check and the agm import decode every sealed binding and assessment text of a store
(two per administration and episode). msgspec decodes such a text several times faster, and
what it reads it reads as `json.loads` does: the same values, type for type. Where the two
differ, msgspec refuses (a NaN or Infinity literal, a number out of a float's range, a lone
surrogate), and json then reads the text as it always did, raising what it always raised
(tests/store/test_verify_json.py holds them equal on generated and edited texts).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from agentmetrology.records.canonical import decode_json, may_hold_tag

_DECODE = msgspec.json.decode
_REFUSED = (msgspec.DecodeError, msgspec.ValidationError, UnicodeEncodeError)


def loads(text: str | bytes) -> Any:
    """Return `json.loads(text)` (the same value, or the same error)."""
    try:
        return _DECODE(text)
    except _REFUSED:
        return json.loads(text)


def decode_canonical(text: str | bytes) -> Any:
    """Return `records.canonical.decode_json(text)` (tags restored; the same errors)."""
    return decode_json(text) if may_hold_tag(text) else loads(text)
