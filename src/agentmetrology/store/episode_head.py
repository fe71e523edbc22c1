"""The fields of an episode blob the store check compares with the ledger, read fast.

The cheap (`ledger`) check reads every episode blob to compare its key, submission digest,
termination and usage with the ledger row; decoding whole episodes (their events are nearly all
of the bytes) was most of the check's time on a large store. msgspec decodes the four top-level
fields and only validates the rest (about 12x faster here). The result is what
`records.canonical.decode_json` gives for those fields: the fast path is taken only for text
without a `$` or `\\u00` (no tag, so no restoring walk) that msgspec accepts; anything else
(tags, NaN, a lone surrogate, a byte-order mark, UTF-16, not an object, not JSON) takes the
old path, and duplicate keys resolve the same way (the last wins).
"""

from __future__ import annotations

from typing import Any

import msgspec

from agentmetrology.records.canonical import decode_json

FIELDS = ("key", "digests", "usage", "termination")


class _Head(msgspec.Struct):
    key: Any = None
    digests: Any = None
    usage: Any = None
    termination: Any = None


_DECODE = msgspec.json.Decoder(_Head).decode


def episode_fields(data: bytes) -> Any:
    """Return the episode's JSON (at least FIELDS of it), or None when it cannot be decoded."""
    if b"$" not in data and b"\\u00" not in data:
        try:
            head = _DECODE(data)
        except msgspec.DecodeError:
            pass  # let the standard decoder decide (it accepts some texts msgspec does not)
        else:
            return {"key": head.key, "digests": head.digests, "usage": head.usage,
                    "termination": head.termination}
    try:
        return decode_json(data)
    except ValueError:
        return None
