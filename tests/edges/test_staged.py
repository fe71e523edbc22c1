"""A set of output files is moved into place whole, or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.edges.staged import staged_files


def _beside(p: Path) -> Path:
    return p.with_name(f".{p.name}.partial")


def test_every_file_is_moved_into_place_after_the_block(tmp_path: Path) -> None:
    paths = {"a": tmp_path / "a.txt", "b": tmp_path / "b.txt"}
    paths["a"].write_text("old a", encoding="utf-8")
    with staged_files(paths, _beside) as staged:
        for key, tmp in staged.items():
            tmp.write_text(f"new {key}", encoding="utf-8")
        assert paths["a"].read_text() == "old a" and not paths["b"].exists()
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {
        "a.txt": "new a", "b.txt": "new b"}


def test_an_interrupt_leaves_every_name_as_it_was(tmp_path: Path) -> None:
    paths = {"a": tmp_path / "a.txt", "b": tmp_path / "b.txt", "c": tmp_path / "c.txt"}
    paths["b"].write_text("old b", encoding="utf-8")
    with pytest.raises(KeyboardInterrupt), staged_files(paths, _beside) as staged:
        staged["a"].write_text("new a", encoding="utf-8")
        staged["b"].write_text("half", encoding="utf-8")
        raise KeyboardInterrupt  # c never written
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {"b.txt": "old b"}
