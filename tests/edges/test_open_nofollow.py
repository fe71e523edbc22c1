"""`open_regular(follow=False)`: the viewer's served files are opened through it, and a
symbolic link swapped in for one is refused on the open itself (O_NOFOLLOW)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentmetrology.edges.files import FileRefused, open_regular


def test_a_link_is_followed_by_default_and_refused_without_follow(tmp_path: Path) -> None:
    target = tmp_path / "secret.txt"
    target.write_bytes(b"operator's")
    link = tmp_path / "served.txt"
    link.symlink_to(target)
    with open_regular(link) as fh:
        assert fh.read() == b"operator's"
    with pytest.raises(FileRefused, match=r"served\.txt: is a symbolic link, not a regular file"):
        open_regular(link, follow=False)
    with open_regular(target, follow=False) as fh:  # a regular file reads as before
        assert fh.read() == b"operator's"


def test_without_follow_a_pipe_and_a_directory_are_still_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    with pytest.raises(FileRefused, match="is a named pipe"):
        open_regular(fifo, follow=False)
    with pytest.raises(IsADirectoryError):
        open_regular(tmp_path, follow=False)
    with pytest.raises(FileNotFoundError):
        open_regular(tmp_path / "missing", follow=False)
