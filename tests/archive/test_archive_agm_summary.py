"""The agm import's summary of an episode blob (archive/importers/agm_summary.py) is what the
full decode gives: the same top-level fields, event count, events per actor and errors, and
fingerprints that are equal only for equal events (and as often equal on a recorded store)."""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import defaultdict
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.archive.importers.agm_store import (
    _events,
    count_actors,
    decode_blob,
    events_fingerprint,
)
from agentmetrology.archive.importers.agm_summary import PLAIN_FIELDS, summarise
from agentmetrology.store.blobs import contents
from store.test_episode_head import ODD

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from memory_stores import build_store


def _full(data: bytes) -> Any:
    """What the import kept before: (fields, count, actors) from the full decode, or the error."""
    try:
        plain = decode_blob(data)
        events = _events(plain.get("events") or [])
        actors = list(count_actors(events).items())
        return {f: plain.get(f) for f in PLAIN_FIELDS}, len(events), actors
    except Exception as exc:  # the error itself is what is compared
        return type(exc).__name__, str(exc)


def _summary(data: bytes) -> Any:
    try:
        s = summarise(data)
    except Exception as exc:
        return type(exc).__name__, str(exc)
    return _full(data) if s is None else (s.plain, s.count, list(s.actors.items()))


def _doc(events: Any, **top: Any) -> bytes:
    return json.dumps({"key": {"seed": 1}, "events": events, **top}).encode()


EVENTS = [
    _doc([{"seq": "abc"}]),  # ValueError: a problem of the blob
    b'{"events":[{"kind":' + b"7" * 5000 + b'}]}',  # str() of a huge int: ValueError
    _doc([{"seq": 1.5, "kind": 3, "name": None, "actor": "agent"}, {"actor": None}, {}]),
    _doc([{"actor": "a"}, {"actor": "b", "seq": True}, {"actor": "a", "args": None}]),
    _doc({}), _doc(None), _doc([]), _doc("abc"), _doc([1]), _doc({"a": 1}),
    _doc([{"actor": "a", "args": {"x": "é"}}]),  # not ASCII, still UTF-8
    _doc([{"actor": "a", "args": {"x": 1e400}}]),  # out of msgspec's range: json reads inf
    _doc([{"actor": "a", "args": {"x": 2 ** 70}, "result": [float("nan")]}]),
    b'{"events":[{"actor":"a","args":"\xff"}]}',  # not UTF-8 where msgspec keeps it raw
    b'{"events":[{"actor":"a","args":"\xed\xa0\x80"}]}',  # an encoded surrogate
    b'{"events":[{"actor":"a","args":"\\x"}]}', b'{"events":[{"actor":"a","args":01}]}',
    b'{"events":[{"actor":"a","args":[1,]}]}', b'{"events":[{"actor":"a","args":"\\ud800"}]}',
    b'{"events":[{"actor":"a","actor":"b","args":1,"args":2}]}',  # duplicates: the last wins
    b'{"events":[{"actor":{"x":1}}]}',  # an actor not a string: named by the full read
    b'{"events":[{"actor":5},{"actor":true},{"actor":1.5}]}',
    b'{"events":[{"seq":null}]}',  # int(None): TypeError, as before
]


@pytest.mark.parametrize("data", ODD + EVENTS, ids=range(len(ODD + EVENTS)))
def test_odd_blobs_are_summarised_as_the_full_decode_reads_them(data: bytes) -> None:
    assert repr(_summary(data)) == repr(_full(data))  # repr: nan == nan


@pytest.fixture(scope="module")
def blobs(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    root = tmp_path_factory.mktemp("summary") / "s"
    build_store(root, 300)
    with closing(sqlite3.connect(root / "ledger.sqlite")) as c:
        digests = [r[0] for r in c.execute("SELECT episode_digest FROM episodes")]
    return [contents((root / "blobs" / d[:2] / d[2:]).read_bytes()) for d in digests]


def test_recorded_episodes_are_summarised_and_shared_as_before(blobs: list[bytes]) -> None:
    assert len(blobs) > 250
    old: dict[str | None, set[int]] = defaultdict(set)
    new: dict[str | None, set[int]] = defaultdict(set)
    for i, data in enumerate(blobs):
        s = summarise(data)
        assert s is not None  # every recorded episode takes the fast read
        assert repr(_summary(data)) == repr(_full(data))
        events = _events(decode_blob(data)["events"])
        old[events_fingerprint(events, data)].add(i)
        new[s.fingerprint].add(i)
    # the same episodes share a replay (a repeat of a deterministic agent's actions)
    assert None not in new and len(new) < len(blobs)
    assert sorted(map(sorted, old.values())) == sorted(map(sorted, new.values()))


def test_equal_fingerprints_are_equal_events() -> None:
    same = [{"actor": "a", "kind": "k", "name": "n", "args": {"p": 1}, "result": [1, "x"]}]
    texts = [_doc(same), _doc(same, usage={"requests": 2}),
             _doc([{**same[0], "args": {"p": 1.0}}]), _doc([{**same[0], "args": {"p": True}}]),
             _doc([{**same[0], "kind": "k2"}]), _doc([{**same[0], "result": None}]),
             _doc([{k: v for k, v in same[0].items() if k != "result"}]),
             _doc([same[0], same[0]])]
    prints = [summarise(t).fingerprint for t in texts]  # type: ignore[union-attr]
    assert prints[0] == prints[1]  # other fields of the episode do not count
    assert prints[5] == prints[6]  # a null result is an absent one (both read as None)
    assert len(set(prints[1:5] + prints[6:])) == 6  # every other change counts
