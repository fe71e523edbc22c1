"""Bounded reading of users' files: regular files only, capped sizes, capped lines."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from agentmetrology.edges.files import (
    FileRefused,
    bounded_lines,
    open_regular,
    path_kind,
    read_text,
)


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(FileRefused, match="is a named pipe, not a regular file"):
        open_regular(fifo)


def test_size_is_checked_before_reading(tmp_path: Path) -> None:
    f = tmp_path / "big.txt"
    f.write_bytes(b"x" * 101)
    with pytest.raises(FileRefused, match="101 bytes is above the limit of 100 bytes"):
        read_text(f, 100)
    assert read_text(f, 101) == "x" * 101
    with pytest.raises(IsADirectoryError):
        open_regular(tmp_path)
    with pytest.raises(FileNotFoundError):
        open_regular(tmp_path / "absent")


def test_a_directory_is_named_by_its_path_and_its_descriptor_closed(tmp_path: Path) -> None:
    # Before, os.fdopen refused the directory first: "[Errno 21] Is a directory: 3" (the fd,
    # left open), which `agm campaign validate DIR` printed as is.
    before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(IsADirectoryError) as caught:
        open_regular(tmp_path)
    assert caught.value.filename == str(tmp_path)
    assert len(os.listdir("/proc/self/fd")) == before


def test_long_lines_are_skipped_not_held() -> None:
    data = b"a\n" + b"b" * 50 + b"\n" + b"c" * 10 + b"\n" + b"d" * 11 + b"\n" + b"e" * 30
    assert list(bounded_lines(io.BytesIO(data), 10)) == [
        b"a\n", None, b"c" * 10 + b"\n", None, None]
    assert list(bounded_lines(io.BytesIO(b"x" * 10), 10)) == [b"x" * 10]


def test_resolved_names_a_link_loop_in_one_line(tmp_path: Path) -> None:
    from agentmetrology.edges.files import FileRefused, resolved

    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(FileRefused, match=r"a: a symbolic link loop \(no file at its end\)"):
        resolved(tmp_path / "a")
    assert resolved(tmp_path / "." / "c") == tmp_path.resolve() / "c"  # a missing file is fine


def test_path_kind_names_what_is_there(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    os.mkfifo(tmp_path / "p")
    (tmp_path / "l").symlink_to(tmp_path / "gone")
    assert [path_kind(tmp_path / n) for n in ("", "f", "p", "l", "none")] == [
        "a directory", "a file", "a named pipe", f"a symbolic link to nothing ({tmp_path}/gone)",
        "missing"]
