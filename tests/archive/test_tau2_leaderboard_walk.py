"""`agm archive leaderboard FOLDER` searches a bounded tree: before, `agm archive leaderboard /`
walked the whole file system (27 s, then failed on some unrelated `.json` far away); now a folder
with more than MAX_WALKED files and folders below it is refused in one line naming the bound,
and the search finds exactly what `Path.rglob("*.json")` found, except that a folder it
cannot read is refused by name where rglob skipped it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import agentmetrology.archive.tau2_leaderboard as board
from agentmetrology.archive.model import ArchiveFormatError
from agentmetrology.cli.archive_cmd import archive_app
from archive.tau2_files import QWEN_AIRLINE, raw, write

runner = CliRunner()


def _tree(root: Path) -> Path:
    """Results files at several depths, a folder named like a file, a link to a folder (not
    followed) and a link to a file (found), as rglob finds them."""
    (root / "subs" / "a" / "trajectories").mkdir(parents=True)
    write(root / "subs" / "a" / "trajectories", "a_airline.json", raw(QWEN_AIRLINE))
    (root / "subs" / "b.json").mkdir()
    (root / "subs" / "b.json" / "c.json").write_text("[]")
    (root / "subs" / "notes.txt").write_text("x")
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "far.json").write_text("{}")
    (root / "subs" / "linked").symlink_to(root / "elsewhere", target_is_directory=True)
    (root / "subs" / "file.json").symlink_to(root / "elsewhere" / "far.json")
    return root / "subs"


def _refused(subs: Path, tmp_path: Path) -> str:
    """Run `agm archive leaderboard subs`; return its one-line refusal (exit 2, nothing
    written)."""
    res = runner.invoke(archive_app, ["leaderboard", str(subs), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and not (tmp_path / "o").exists()
    return " ".join(res.output.split())


def test_the_search_finds_what_rglob_found(tmp_path: Path) -> None:
    subs = _tree(tmp_path)
    assert sorted(board._json_below(subs, subs)) == sorted(subs.rglob("*.json"))
    assert board.results_files([subs]) == [subs / "a" / "trajectories" / "a_airline.json"]


def test_a_folder_above_the_bound_is_refused_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    subs = _tree(tmp_path)  # 8 files and folders below subs (the linked folder not entered)
    monkeypatch.setattr(board, "MAX_WALKED", 8)
    assert len(board.results_files([subs])) == 1
    monkeypatch.setattr(board, "MAX_WALKED", 7)
    with pytest.raises(ArchiveFormatError, match=f"^{subs}: more than 7 files and folders"):
        board.results_files([subs])
    assert _refused(subs, tmp_path) == (
        f"error: {subs}: more than 7 files and folders below it, where a folder of submissions "
        "holds a few per submission; give the folder of the results files, not one far above "
        "it")


def test_the_bound_is_the_documented_one() -> None:
    docs = " ".join((Path(__file__).parents[2] / "docs" / "archive.md").read_text().split())
    assert board.MAX_WALKED == 100_000 and "at most 100,000 files and folders" in docs


def test_a_folder_that_cannot_be_read_is_refused_never_skipped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before, an unreadable folder was skipped as rglob skips it: the submissions in it were
    # missing from the rankings and nothing said so. (Tests run as root, where permissions do
    # not stop a read: the refusal is simulated at os.scandir.)
    subs = _tree(tmp_path)
    real = board.os.scandir
    locked = subs / "a"

    def scandir(path: Any) -> Any:
        if Path(path) in (locked, blocked[0]):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    blocked = [locked]
    monkeypatch.setattr(board.os, "scandir", scandir)
    with pytest.raises(ArchiveFormatError, match=(
            f"^{subs}: cannot read the folder {locked} below it \\(Permission denied\\)")):
        board.results_files([subs])
    assert _refused(subs, tmp_path) == (
        f"error: {subs}: cannot read the folder {locked} below it (Permission denied); its "
        "results files would be missing from the leaderboard: make it readable, or give the "
        "other folders one by one")
    blocked[0] = subs
    with pytest.raises(ArchiveFormatError, match=f"^{subs}: cannot read this folder "):
        board.results_files([subs])
