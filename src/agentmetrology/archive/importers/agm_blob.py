"""What the agm import reads of one episode blob: its checked bytes decoded and summarised.

`read_episode` is the whole of the import's work on an episode's blob, with no ledger and no
archive: read it (checked against its digest), decode what the import keeps (agm_summary, or
the full decode where that cannot answer), and the token the store check compares with the
ledger row (store.blob_reads). It runs in the importing process or in a reader process ahead
of it (agm_ahead) and gives the same `Found` either way; an error is returned, not raised, so
that the import raises it where it would have met it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import msgspec

from agentmetrology.archive.importers.agm_summary import summarise
from agentmetrology.archive.importers.limits import kind_name
from agentmetrology.archive.model import ArchiveEvent, count_actors
from agentmetrology.records.canonical import decode_json, may_hold_tag, sha256_hex
from agentmetrology.store.blob_reads import BlobRead, BlobReads
from agentmetrology.store.blobs import BlobStore

# What the import reads of a blob's top level, and of each of those fields when it is an object:
# only that is kept (and sent back by a reader process: the rest of `meta` was most of it).
KEPT = {"meta": ("profile", "max_steps"), "digests": ("submission",), "usage": ("attempts",)}


class Found(NamedTuple):
    """One episode blob as `read_episode` found it.

    `verdict`: what the store check is handed (None when the file could not be read);
    `error`: the exception the import raises (or records) at this episode, else None; the
    event count, events per actor and replay fingerprint; and the blob's `KEPT` fields (_kept).
    """

    verdict: BlobRead | None
    error: BaseException | None
    event_count: int = 0
    actors: dict[Any, int] | None = None
    fingerprint: str | None = None
    plain: dict[str, Any] | None = None


def read_episode(blobs: BlobStore, digest: str) -> Found:
    """Return what the import reads of episode blob `digest` (see the module docstring)."""
    reads = BlobReads()
    try:
        data = reads.get(blobs, digest)  # verified, the verdict kept for the store check
        summary = summarise(data)  # no event's values built; None: read in full, as before
        if summary is None:
            plain = decode_blob(data)
            reads.episode(digest, plain)
            if not isinstance(plain, dict):
                raise ValueError(f"it is {kind_name(plain)}, not an episode (an object)")
            events = _events(plain.get("events") or [])  # unreadable events are a problem
            found = Found(None, None, len(events), dict(count_actors(events)),
                          events_fingerprint(events, data), _kept(plain))
        else:
            reads.episode(digest, summary.plain)
            found = Found(None, None, summary.count, summary.actors, summary.fingerprint,
                          _kept(summary.plain))
    except Exception as exc:  # raised by the import where it meets this episode
        return Found(reads.seen(digest), exc)
    return found._replace(verdict=reads.seen(digest))


def _kept(plain: dict[str, Any]) -> dict[str, Any]:
    """Return the `KEPT` fields of a blob's top level (an absent one reads as None, as
    before), each object among them cut to the keys the import reads: what it reads of
    them (`.get`, a default for an absent key) is what it read of the whole; a value of
    any other type is kept as it is, to fail where it failed."""
    out: dict[str, Any] = {}
    for name, keys in KEPT.items():
        value = plain.get(name)
        out[name] = ({k: value[k] for k in keys if k in value} if type(value) is dict
                     else value)
    return out


def decode_blob(data: bytes) -> Any:
    """Return a JSON blob decoded as `records.canonical.decode_json` decodes it: by msgspec
    (several times faster on an episode) when the text holds no tag and nothing msgspec reads
    otherwise than json does (it refuses, never misreads: NaN, a lone surrogate, a float out of
    range), else by decode_json itself."""
    if not may_hold_tag(data):  # decode_json's own test
        try:
            return _DECODE(data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            pass  # decode_json reads it, or raises as it always did
    return decode_json(data)


_DECODE = msgspec.json.decode

# Text json reads as a non-finite float (a tag, or the literals json.loads accepts): msgspec
# writes such a float as null, so events holding one get no fingerprint.
_NON_FINITE_TEXT = (b"$float", b"NaN", b"Infinity")


def events_fingerprint(events: list[ArchiveEvent], blob: bytes) -> str | None:
    """Return the digest of every event's (actor, kind, name, args, result), what a replay is
    made from: equal digests are equal events, value for value and type for type (plain JSON
    from the blob, every float finite), or None when the blob may hold a non-finite float."""
    if any(t in blob for t in _NON_FINITE_TEXT):
        return None
    try:
        text = _ENCODE([(e.actor, e.kind, e.name, e.args, e.result) for e in events])
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError):  # e.g. a huge int
        return None
    return sha256_hex(text)


_ENCODE = msgspec.json.encode


def _events(raw: Any) -> list[ArchiveEvent]:
    """Return a blob's events; ValueError naming what is not an event list of objects."""
    if not isinstance(raw, list):
        raise ValueError(f"its events are {kind_name(raw)}, not a list")
    out = []
    for i, e in enumerate(raw):
        if not isinstance(e, dict):
            raise ValueError(f"its event {i} is {kind_name(e)}, not an object")
        seq = e.get("seq", i)
        try:
            number = int(seq)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"its event {i} has a seq that is not a whole number: "
                             f"{repr(seq)[:40]}") from None
        actor = e.get("actor")
        if actor is not None and not isinstance(actor, str):  # (events are counted by actor)
            raise ValueError(f"its event {i} has an actor that is {kind_name(actor)}, not a "
                             "string")
        out.append(ArchiveEvent(seq=number, kind=str(e.get("kind", "")),
                                name=str(e.get("name", "")), args=e.get("args"),
                                result=e.get("result"), actor=actor))
    return out

