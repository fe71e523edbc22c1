"""What the agm import keeps of an episode blob, read without building its events' values.

The import reads every episode blob once and keeps no events (they are read again when an
analysis walks them): only their number, the events per actor and a fingerprint of what a
replay is made from, with the blob's top-level fields the import and the store check read.
Decoding every event's arguments and results (most of an episode's bytes) only to encode them
again for the fingerprint was most of the import's time. Here msgspec decodes each event's
seq, kind, name and actor and keeps its arguments and result as their JSON text
(`msgspec.Raw`), and the fingerprint digests that text: equal texts are equal values, so equal
fingerprints are still equal events (a text written otherwise for the same value gives another
fingerprint: that replay is run, not shared).

`summarise` answers only where it reads what `agm_store.decode_blob` reads, else None (the
caller then takes the full decode): a text holding a tag or an escape that could spell one (as
decode_blob), text that is not UTF-8 (msgspec does not check the UTF-8 of text it keeps raw;
json refuses it), anything msgspec refuses here, and an event whose seq is not a whole number
or whose actor is neither a string nor null (the full decode, `agm_blob._events`, names it).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec

from agentmetrology.records.canonical import may_hold_tag, sha256_hex

PLAIN_FIELDS = ("key", "digests", "usage", "termination", "meta")
_NULL = msgspec.Raw(b"null")  # an absent value reads as None, as a null one does
_UNSET = msgspec.UNSET


class _Event(msgspec.Struct):
    seq: Any = _UNSET
    kind: Any = _UNSET
    name: Any = _UNSET
    args: msgspec.Raw = _NULL
    result: msgspec.Raw = _NULL
    actor: str | None = None  # anything else: the full decode names it (ValidationError)


class _Episode(msgspec.Struct):
    events: list[_Event] | None = None
    key: Any = None
    digests: Any = None
    usage: Any = None
    termination: Any = None
    meta: Any = None


_DECODE = msgspec.json.Decoder(_Episode).decode
_ENCODE = msgspec.json.encode


class Summary(msgspec.Struct, frozen=True):
    """An episode blob as the import keeps it: its top-level fields read (PLAIN_FIELDS, None
    when absent), its event count, events per actor, and replay fingerprint (None: none)."""

    plain: dict[str, Any]
    count: int
    actors: dict[Any, int]
    fingerprint: str | None


def summarise(data: bytes) -> Summary | None:
    """Return the summary of an episode blob's contents, None when the full decode must read it
    (see the module docstring)."""
    if may_hold_tag(data) or not _utf8(data):
        return None
    try:
        doc = _DECODE(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    events = doc.events or []
    try:
        texts = [(int(i if e.seq is _UNSET else e.seq), "" if e.kind is _UNSET else str(e.kind),
                  "" if e.name is _UNSET else str(e.name)) for i, e in enumerate(events)]
        actors = Counter(e.actor or "(unlabelled)" for e in events)
    except (TypeError, ValueError, OverflowError):  # the full decode names the event
        return None
    fingerprint = _fingerprint(events, texts)
    plain = {f: getattr(doc, f) for f in PLAIN_FIELDS}
    return Summary(plain, len(events), dict(actors), fingerprint)


def _utf8(data: bytes) -> bool:
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _fingerprint(events: list[_Event], texts: list[tuple[int, str, str]]) -> str | None:
    """Return the digest of every event's actor, kind, name and the JSON texts of its arguments
    and result (see the module docstring), None when one cannot be encoded (a huge int).

    No non-finite float is looked for, unlike `agm_store.events_fingerprint`, which encodes the
    decoded values (where NaN and null would be one): the texts are digested as they are."""
    try:
        text = _ENCODE([(e.actor, kind, name, e.args, e.result)
                        for e, (_, kind, name) in zip(events, texts, strict=True)])
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
        return None
    return sha256_hex(text)
