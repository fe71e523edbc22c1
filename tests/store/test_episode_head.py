"""The store check's fast read of an episode blob: what the full decode gives for its fields."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.records.canonical import decode_json
from agentmetrology.store import episode_head
from agentmetrology.store.blobs import contents
from agentmetrology.store.episode_head import FIELDS, episode_fields

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from memory_stores import build_store


def _old(data: bytes) -> Any:
    """What the check read before: the whole blob through decode_json (None if unreadable)."""
    try:
        plain = decode_json(data)
    except ValueError:
        return None
    return {k: plain.get(k) for k in FIELDS} if isinstance(plain, dict) else plain


def _new(data: bytes) -> Any:
    got = episode_fields(data)
    return {k: got.get(k) for k in FIELDS} if isinstance(got, dict) else got


@pytest.fixture(scope="module")
def blobs(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    root = tmp_path_factory.mktemp("heads") / "s"
    build_store(root, 300)
    with sqlite3.connect(root / "ledger.sqlite") as c:
        digests = [r[0] for r in c.execute(
            "SELECT episode_digest FROM episodes UNION SELECT episode_digest "
            "FROM superseded_episodes")]
    return [contents((root / "blobs" / d[:2] / d[2:]).read_bytes()) for d in digests]


def test_every_recorded_episode_reads_the_same(blobs: list[bytes],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(blobs) > 250
    for data in blobs:
        assert _new(data) == _old(data)
    # and the fast path is what read them (the full decode is not called for plain episodes)
    plain = [b for b in blobs if b"$" not in b and b"\\u00" not in b]
    assert len(plain) > 200
    monkeypatch.setattr(episode_head, "decode_json", lambda d: pytest.fail("decoded in full"))
    for data in plain:
        assert _new(data)["key"] is not None


KEY = {"campaign": "c", "target": "t", "task": "T1", "seed": 1, "condition": "clean",
       "level": "L0", "repeat": 0}
ODD = [
    b'{"key":1,"key":2,"usage":{"a":1,"a":2}}',  # duplicate keys: the last wins in both
    b'{"usage":{"cost":123456789012345678901234567890}}',  # beyond 64 bits
    b'{"usage":{"cost":1e400}}',  # inf in json, refused by msgspec
    b'{"usage":{"cost":NaN}}',
    b'{"usage":{"cost":{"$float":"nan"}}}',  # a tag: restored by the full decode
    b'{"usage":"\\u0024float"}',  # an escape that could spell a tag
    b'{"termination":"\\ud800"}',  # a lone surrogate
    b'{"termination":{"kind":-0.0,"detail":0.1000000000000000055511151231257827}}',
    b'\xef\xbb\xbf{"usage":1}',  # a byte-order mark
    '{"usage":1}'.encode("utf-16"),
    b'{"usage":"\xff"}',  # not UTF-8
    b'{"$literal":{"key":1,"usage":2}}',  # one tag wrapping everything: the full decode
    b'{"$float":"nan"}', b'{"other":1}', b'{"key":null}',
    b'[1, 2]', b'"text"', b'null', b'', b'{"x":[1,2,}', b'{"usage":1}x', b' {"usage":1} ',
    b'{"events":[' + b'[' * 50 + b']' * 50 + b'],"digests":{"submission":"ab"}}',
    json.dumps({"key": KEY, "digests": {"submission": "ab" * 32}, "usage": {"attempts": [
        {"cost": 0.1, "input_tokens": 3}]}, "termination": {"kind": "submitted"},
        "events": [{"x": "é"}]}, ensure_ascii=False).encode(),
]


@pytest.mark.parametrize("data", ODD, ids=range(len(ODD)))
def test_odd_texts_read_the_same(data: bytes) -> None:
    assert repr(_new(data)) == repr(_old(data))  # repr: nan == nan, -0.0 vs 0 told apart
