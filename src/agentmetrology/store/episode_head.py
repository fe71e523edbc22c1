"""The fields of an episode blob the store check compares with the ledger, read fast.

(Also `meta.served_over`: whether the episode's cost was observed, see store.evidence.)

The cheap (`ledger`) check reads every episode blob to compare its key, submission digest,
termination and usage with the ledger row; decoding whole episodes (their events are nearly all
of the bytes) was most of the check's time on a large store. msgspec decodes the four top-level
fields and only validates the rest (several times faster); each field then goes through
`records.canonical.from_plain`, which restores tagged non-finite floats, so the result is what
`records.canonical.decode_json` gives for those fields: the tag walk of a document with an
ordinary top-level key is the walk of each value. Anything else takes the full decode: text
msgspec refuses (NaN, a lone surrogate, a byte-order mark, UTF-16, not an object, not JSON)
and a document with none of the four fields (which may be one tag wrapping everything).
Duplicate keys resolve the same way in both (the last wins).
"""

from __future__ import annotations

from typing import Any

import msgspec

from agentmetrology.records.canonical import decode_json, from_plain

FIELDS = ("key", "digests", "usage", "termination")


class _Meta(msgspec.Struct):
    served_over: Any = None  # what `store.evidence.recorded_cost` reads of the episode's meta


class _Head(msgspec.Struct):
    key: Any = None
    digests: Any = None
    usage: Any = None
    termination: Any = None
    meta: _Meta | None = None


_DECODE = msgspec.json.Decoder(_Head).decode


def episode_fields(data: bytes) -> Any:
    """Return the episode's JSON (at least FIELDS of it), or None when it cannot be decoded."""
    try:
        head = _DECODE(data)
    except msgspec.DecodeError:
        head = None  # let the standard decoder decide (it accepts some texts msgspec does not)
    if head is not None:
        values = (head.key, head.digests, head.usage, head.termination)
        if any(v is not None for v in values):
            out = {name: from_plain(v) for name, v in zip(FIELDS, values, strict=True)}
            if head.meta is not None:
                out["meta"] = {"served_over": from_plain(head.meta.served_over)}
            return out
    try:
        return decode_json(data)
    except ValueError:
        return None
