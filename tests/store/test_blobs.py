"""Content-addressed blobs and user paths: atomic, never overwritten, verified, no traversal.

BlobStore's write contract: atomic, read-only, never through a planted path, nothing left over.

Each test pins one promise of store/blobs.py that the round-trip tests do not reach: the
temporary file lives in the blob's own folder (so the rename is atomic), is created exclusively
(a symlink planted at its name is never written through), read-only and close-on-exec; fsync
only when asked; a failed write closes its descriptor once, removes its temporary file and
raises the original error."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path
from typing import Any

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


@pytest.mark.parametrize("target", ["a copy", "/dev/zero", "a named pipe"])
def test_a_blob_that_is_a_link_or_not_a_file_is_corrupt_never_read(tmp_path: Path,
                                                                    target: str) -> None:
    # Before, a blob linked to /dev/zero was read until memory ran out (`agm audit --store`
    # ended in a MemoryError traceback), a named pipe blocked, and a link to a copy was read
    # as the store's own blob; `verify` already calls these blob_not_regular.
    blobs = BlobStore(tmp_path)
    d = blobs.put(b"evidence")
    path = blobs.path(d)
    path.chmod(0o644)
    path.unlink()
    if target == "a named pipe":
        os.mkfifo(path)
        why = "is not a regular file"
    else:
        if target == "a copy":
            (tmp_path / "copy").write_bytes(b"evidence")
        path.symlink_to(tmp_path / "copy" if target == "a copy" else target)
        why = "is a symbolic link, not a file of the store"
    assert blobs.read(d) == (None, f"{path} {why}")
    with pytest.raises(BlobCorruptError, match=f"blob {d} is corrupt: .* {why}"):
        blobs.get(d)


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 70_000])
def test_a_blob_file_is_read_whole_in_one_read_or_on_to_its_end(
        tmp_path: Path, size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # One read of size + 1 bytes is the usual path; a file that grew after its fstat (here:
    # fstat reporting less than is there) and a file past the one-read limit are read on
    # until a read returns nothing, so no byte is ever cut off.
    import agentmetrology.store.blobs as blob_module

    path = tmp_path / "f"
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    path.write_bytes(data)
    assert blob_module.read_regular(path) == data
    reads: list[int] = []
    real_read, real_fstat = os.read, os.fstat

    def counted(fd: int, n: int) -> bytes:
        reads.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(blob_module.os, "read", counted)
    assert blob_module.read_regular(path) == data
    assert reads == [size + 1]
    reads.clear()
    monkeypatch.setattr(blob_module.os, "fstat", lambda fd: os.stat_result(
        (*real_fstat(fd)[:6], max(size // 2 - 1, 0), *real_fstat(fd)[7:])))
    assert blob_module.read_regular(path) == data  # grew since its fstat: read on
    monkeypatch.setattr(blob_module.os, "fstat", real_fstat)
    monkeypatch.setattr(blob_module, "_ONE_READ_MAX", 0)
    reads.clear()
    assert blob_module.read_regular(path) == data  # past one read: read on to the end
    assert reads[-1] == 1 << 20 and len(reads) >= 2


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


def _same_prefix_pair() -> tuple[bytes, bytes]:
    """Two different payloads whose digests share the fan-out folder (first two hex digits)."""
    seen: dict[str, bytes] = {}
    for i in range(10_000):
        data = b"payload-%d" % i
        prefix = hashlib.sha256(data).hexdigest()[:2]
        if prefix in seen:
            return seen[prefix], data
        seen[prefix] = data
    raise AssertionError("no two payloads share a prefix")  # impossible: 256 folders


def test_missing_error_text_with_and_without_a_message() -> None:
    assert str(BlobMissingError()) == "blob missing"
    assert str(BlobMissingError("blob ab is not in the store at /s")) == \
        "blob ab is not in the store at /s"  # not KeyError's quoted repr


def test_a_store_opens_again_over_existing_folders(tmp_path: Path) -> None:
    a, b = _same_prefix_pair()
    first = BlobStore(tmp_path)
    da = first.put(a)
    # A second store on the same root (a new process, a reopened store): its blobs/ folder and
    # the fan-out folder both exist already, and neither is an error.
    second = BlobStore(tmp_path)
    db = second.put(b)
    assert da[:2] == db[:2] and da != db
    assert second.get(da) == a and second.get(db) == b


def test_a_fan_out_folder_is_created_once_per_store(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = _same_prefix_pair()
    blobs = BlobStore(tmp_path)
    made: list[str] = []
    real = os.makedirs

    def makedirs(name: Any, *args: Any, **kwargs: Any) -> None:
        made.append(os.fspath(name))
        real(name, *args, **kwargs)

    monkeypatch.setattr(os, "makedirs", makedirs)
    da = blobs.put(a)
    blobs.put(b)
    assert made == [os.path.join(tmp_path, "blobs", da[:2])]


def test_fsync_only_when_asked_and_on_the_blobs_descriptor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[int] = []
    synced: list[int] = []
    real_open = os.open

    def open_(path: Any, flags: int, *args: Any) -> int:
        fd = real_open(path, flags, *args)
        opened.append(fd)
        return fd

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "fsync", synced.append)
    BlobStore(tmp_path / "default").put(b"one")
    assert opened and synced == []  # the default: a kill loses nothing; fsync is for power loss
    opened.clear()
    BlobStore(tmp_path / "durable", fsync=True).put(b"two")
    assert synced == opened and len(synced) == 1


def test_the_temporary_file_is_exclusive_read_only_and_beside_the_blob(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, int, int]] = []
    renames: list[tuple[str, str]] = []
    real_open, real_replace = os.open, os.replace

    def open_(path: Any, flags: int, mode: int = 0o777, *args: Any) -> int:
        calls.append((os.fspath(path), flags, mode))
        return real_open(path, flags, mode, *args)

    def replace(src: Any, dst: Any) -> None:
        renames.append((os.fspath(src), os.fspath(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "replace", replace)
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # a temporary file named without its folder would land here
    blobs = BlobStore(tmp_path / "store")
    digest = blobs.put(b"evidence")
    [(path, flags, mode)] = calls
    final = os.fspath(blobs.path(digest))
    assert renames == [(path, final)]
    assert os.path.dirname(path) == os.path.dirname(final)  # same folder: an atomic rename
    for flag in (os.O_WRONLY, os.O_CREAT, os.O_EXCL, os.O_CLOEXEC):
        assert flags & flag == flag
    assert mode == 0o444
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(final).st_mode) == 0o444 & ~umask
    assert list(elsewhere.iterdir()) == []


def test_a_symlink_planted_at_the_temporary_name_is_never_written_through(
        tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "store")
    data = b"planted"
    digest = hashlib.sha256(data).hexdigest()
    folder = tmp_path / "store" / "blobs" / digest[:2]
    folder.mkdir()
    victim = tmp_path / "outside.txt"
    victim.write_bytes(b"untouched")
    # The next temporary name this store will use (process id, then its counter from 0).
    (folder / f".tmp-{os.getpid()}-0").symlink_to(victim)
    with pytest.raises(FileExistsError):
        blobs.put(data)
    assert victim.read_bytes() == b"untouched"
    assert not blobs.has(digest)


def _failing_write(monkeypatch: pytest.MonkeyPatch, *, fd: int | None = None,
                   remove_tmp: bool = False) -> dict[str, list[Any]]:
    """Make os.write fail with ENOSPC; record os.close calls (and fake os.open's fd if given)."""
    seen: dict[str, list[Any]] = {"closed": [], "paths": []}
    real_open, real_close = os.open, os.close

    def open_(path: Any, flags: int, *args: Any) -> int:
        real = real_open(path, flags, *args)
        seen["paths"].append(os.fspath(path))
        if fd is None:
            return real
        real_close(real)
        return fd

    def write(got: int, data: Any) -> int:
        if remove_tmp:
            os.unlink(seen["paths"][-1])
        raise OSError(errno.ENOSPC, "No space left on device")

    def close(got: int) -> None:
        seen["closed"].append(got)
        if fd is None:
            real_close(got)

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "close", close)
    return seen


def _left_over(root: Path) -> list[str]:
    return [p.name for p in (root / "blobs").rglob("*") if p.is_file()]


def test_a_failed_write_closes_once_removes_its_file_and_raises_the_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blobs = BlobStore(tmp_path)
    seen = _failing_write(monkeypatch)
    with pytest.raises(OSError) as err:
        blobs.put(b"does not fit")
    assert err.value.errno == errno.ENOSPC
    assert len(seen["closed"]) == 1 and seen["closed"][0] >= 0
    assert _left_over(tmp_path) == []


def test_descriptor_zero_is_closed_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A process started with stdin closed gets 0 from its first open: still a descriptor.
    blobs = BlobStore(tmp_path)
    seen = _failing_write(monkeypatch, fd=0)
    with pytest.raises(OSError, match="No space"):
        blobs.put(b"zero")
    assert seen["closed"] == [0]


def test_a_temporary_file_already_gone_does_not_hide_the_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blobs = BlobStore(tmp_path)
    _failing_write(monkeypatch, remove_tmp=True)
    with pytest.raises(OSError) as err:
        blobs.put(b"gone")
    assert err.value.errno == errno.ENOSPC


def test_a_failed_rename_closes_nothing_twice(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    blobs = BlobStore(tmp_path)
    closed: list[int] = []
    real_close = os.close

    def close(fd: int) -> None:
        closed.append(fd)
        if fd > 2:  # never the test process's own stdin, stdout or stderr
            real_close(fd)

    def replace(src: Any, dst: Any) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "close", close)
    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError) as err:
        blobs.put(b"renamed")
    assert err.value.errno == errno.EXDEV
    assert len(closed) == 1  # the descriptor was closed before the rename, and only then
    assert _left_over(tmp_path) == []
