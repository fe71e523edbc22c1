"""Content-addressed blobs and user paths: atomic, never overwritten, verified, no traversal."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from agentmetrology.store import (
    BlobCorruptError,
    BlobMissingError,
    BlobStore,
    EvidenceStore,
    StorePathError,
)
from agentmetrology.store.paths import inside


def test_put_get_roundtrip_under_sha256_path(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path)
    data = b'{"hello":"world"}'
    d = blobs.put(data)
    assert d == hashlib.sha256(data).hexdigest()
    assert blobs.path(d) == tmp_path / "blobs" / d[:2] / d[2:]
    assert blobs.get(d) == data and blobs.has(d)
    assert not [p for p in (tmp_path / "blobs" / d[:2]).iterdir() if p.name.startswith(".tmp")]


def test_existing_blob_is_never_rewritten(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path)
    d = blobs.put(b"evidence")
    path = blobs.path(d)
    before = path.stat()
    assert blobs.put(b"evidence") == d
    after = path.stat()
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)
    assert not os.access(path, os.W_OK) or os.geteuid() == 0  # read-only (root may still write)
    assert path.stat().st_mode & 0o222 == 0


def test_corrupt_and_missing_blobs_are_reported(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path)
    d = blobs.put(b"original bytes")
    path = blobs.path(d)
    path.chmod(0o644)
    path.write_bytes(b"tampered bytes")
    with pytest.raises(BlobCorruptError, match="corrupt"):
        blobs.get(d)
    with pytest.raises(BlobMissingError, match="not in the store"):
        blobs.get("0" * 64)


@pytest.mark.parametrize("bad", ["../" + "a" * 62, "A" * 64, "abc", "../../etc/passwd"])
def test_malformed_digests_cannot_address_files(tmp_path: Path, bad: str) -> None:
    with pytest.raises(StorePathError):
        BlobStore(tmp_path).get(bad)


def test_user_paths_stay_inside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    assert inside(root, "reports/a.json") == (root / "reports" / "a.json").resolve()
    for bad in ("../outside", "a/../../outside", str(tmp_path / "abs"), "", "a\x00b"):
        with pytest.raises(StorePathError):
            inside(root, bad)
    (root / "link").symlink_to(tmp_path)  # a link inside that points outside
    with pytest.raises(StorePathError, match="outside the store root"):
        inside(root, "link/x")


def test_store_user_path_and_missing_store(tmp_path: Path) -> None:
    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
        assert st.user_path("exports/x.json").is_relative_to(st.root.resolve())
        with pytest.raises(StorePathError):
            st.user_path("../../x")
    from agentmetrology.store import StoreNotFoundError

    with pytest.raises(StoreNotFoundError, match="no evidence store"):
        EvidenceStore.open(tmp_path / "nothing", create=False)
