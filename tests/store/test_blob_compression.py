"""Compressed blob files (store/blobs.py): the digest is the contents', legacy files still read.

A blob file holds MAGIC and a zlib stream of the contents; the name stays the sha256 of the
contents, so every digest a record pins holds. A file written before compression (the
contents as they are) is read unchanged, even one that begins with MAGIC. A tampered
compressed file is caught by `get`, the reader and `evidence verify`; one that would inflate
past MAX_INFLATED (a zip bomb) is a corrupt blob, never an out-of-memory.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path

import pytest

import store.verify_fixtures as vf
from agentmetrology.store import BlobCorruptError, BlobStore
from agentmetrology.store import blobs as blob_mod
from agentmetrology.store.blobs import MAGIC, MAX_INFLATED, contents, unpack
from agentmetrology.store.errors import StoreError
from agentmetrology.store.reader import StoreReader
from agentmetrology.store.verify import verify_store
from store.verify_fixtures import built_store, episode_digests, store_copy  # noqa: F401

EPISODE = json.dumps({"events": [{"seq": i, "name": "get_page"} for i in range(200)]},
                     sort_keys=True, separators=(",", ":")).encode()


def _plant(root: Path, data: bytes, stored: bytes) -> tuple[str, Path]:
    """Write `stored` as the file of the blob whose contents are `data`; return digest, path."""
    d = hashlib.sha256(data).hexdigest()
    path = root / "blobs" / d[:2] / d[2:]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(stored)
    return d, path


def test_a_blob_is_stored_compressed_under_the_digest_of_its_contents(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path)
    d = blobs.put(EPISODE)
    assert d == hashlib.sha256(EPISODE).hexdigest()
    raw = blobs.path(d).read_bytes()
    assert raw.startswith(MAGIC) and zlib.decompress(raw[len(MAGIC):]) == EPISODE
    assert len(raw) * 5 < len(EPISODE)  # 200 similar events shrink more than 5x
    assert blobs.get(d) == EPISODE and contents(raw) == EPISODE


def test_a_blob_compression_would_not_shrink_is_stored_as_it_is(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path)
    d = blobs.put(b"{}")
    assert blobs.path(d).read_bytes() == b"{}" and blobs.get(d) == b"{}"


def test_a_blob_larger_than_the_cap_is_stored_as_it_is(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blob_mod, "MAX_INFLATED", 1000)
    blobs = BlobStore(tmp_path)
    d = blobs.put(EPISODE)  # 200 events: past the 1,000-byte cap
    assert blobs.path(d).read_bytes() == EPISODE and blobs.get(d) == EPISODE


def test_legacy_files_are_read_unchanged(tmp_path: Path) -> None:
    d, _ = _plant(tmp_path, EPISODE, EPISODE)
    assert BlobStore(tmp_path).get(d) == EPISODE
    # a legacy blob that happens to begin with MAGIC: its digest says it is stored as it is
    odd = MAGIC + b"not a zlib stream"
    d2, _ = _plant(tmp_path, odd, odd)
    assert BlobStore(tmp_path).get(d2) == odd
    inner = MAGIC + zlib.compress(b"x")  # even one whose tail is a valid stream
    d3, _ = _plant(tmp_path, inner, inner)
    assert BlobStore(tmp_path).get(d3) == inner


def test_a_tampered_compressed_file_is_corrupt(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path)
    d = blobs.put(EPISODE)
    path = blobs.path(d)
    raw = bytearray(path.read_bytes())
    path.chmod(0o644)
    # the same stream framing, other contents: inflates fine, hashes to something else
    path.write_bytes(MAGIC + zlib.compress(EPISODE.replace(b"get_page", b"get_pagX", 1)))
    with pytest.raises(BlobCorruptError, match="now hash to"):
        blobs.get(d)
    raw[len(raw) // 2] ^= 0xFF  # a flipped byte in the stream
    path.write_bytes(bytes(raw))
    with pytest.raises(BlobCorruptError, match=f"blob {d} is corrupt"):
        blobs.get(d)
    path.write_bytes(bytes(raw[:len(raw) // 2]))  # truncated
    with pytest.raises(BlobCorruptError, match="truncated"):
        blobs.get(d)


def test_a_zip_bomb_is_a_corrupt_blob_not_an_out_of_memory(tmp_path: Path) -> None:
    huge = zlib.compress(b"\0" * (MAX_INFLATED + 1), 9)  # 64 MiB + 1 of zeros: ~65 KiB
    d, _ = _plant(tmp_path, b"{}", MAGIC + huge)
    with pytest.raises(BlobCorruptError, match=f"inflates past {MAX_INFLATED:,} bytes"):
        BlobStore(tmp_path).get(d)
    with pytest.raises(BlobCorruptError, match="inflates past"):
        contents(MAGIC + huge)
    with pytest.raises(BlobCorruptError, match="inflates past"):
        unpack(MAGIC + huge, d)


def test_verify_rehashes_the_inflated_bytes_of_a_compressed_blob(root: Path) -> None:
    ep, _ = episode_digests(root, 1)
    path = vf.blob(root, ep)
    assert path.read_bytes().startswith(MAGIC)  # the recorded store writes compressed blobs
    assert verify_store(root).result == "qualified"
    plain = contents(path.read_bytes())
    path.chmod(0o644)
    path.write_bytes(MAGIC + zlib.compress(plain.replace(b'"', b"'", 1)))
    now = hashlib.sha256(plain.replace(b'"', b"'", 1)).hexdigest()
    for mode in ("full", "hash-only"):
        q = verify_store(root, mode=mode)
        assert [(p.kind, p.detail) for p in q.problems if p.kind == "blob_changed"] == [
            ("blob_changed", f"blob {ep[:12]}'s bytes now hash to {now[:12]}")], mode
    with pytest.raises(StoreError, match=f"blob {ep} is corrupt"):
        StoreReader(root).blob(ep)


def test_verify_reports_a_zip_bomb_as_a_changed_blob(root: Path) -> None:
    ep, _ = episode_digests(root, 1)
    path = vf.blob(root, ep)
    path.chmod(0o644)
    path.write_bytes(MAGIC + zlib.compress(b"\0" * (MAX_INFLATED + 1), 9))
    q = verify_store(root, mode="hash-only")
    assert [(p.kind, p.detail) for p in q.problems] == [
        ("blob_changed", f"blob {ep[:12]}'s compressed stream inflates past "
                         f"{MAX_INFLATED:,} bytes (the most a blob is written compressed)")]


def test_a_store_of_legacy_blob_files_still_qualifies(root: Path) -> None:
    for path in (root / "blobs").rglob("*"):
        if path.is_file():  # rewrite every blob as it was stored before compression
            plain = contents(path.read_bytes())
            path.chmod(0o644)
            path.write_bytes(plain)
    assert not [p for p in (root / "blobs").rglob("*")
                if p.is_file() and p.read_bytes().startswith(MAGIC)]
    assert verify_store(root).result == "qualified"
