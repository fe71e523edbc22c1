"""Reports are never written into an evidence store: every command with an `--out` refuses one
that is a store, or lies in one at any depth (a directory holding ledger.sqlite), in one line
(exit 2) before any work, and writes nothing there. Before, only `agm export` refused it (and
only inside the store it exported); `agm archive audit S --out S/rep`, `agm diagnose`, `agm
experiment report`, `agm audit ...` and `agm archive leaderboard` mixed their reports with the
evidence. The check is one function, store.enclosing.refuse_inside_store."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.store.enclosing import InsideStoreError, enclosing_store, refuse_inside_store
from archive.tau2_files import QWEN_AIRLINE, shared
from support.agm_runs import agm, agm_process

SQUEEZE = Path(__file__).parents[2] / "examples" / "experiment_squeeze.toml"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A directory that reads as an evidence store to the check (its ledger is never opened:
    every command refuses the --out before it reads anything)."""
    root = tmp_path / "S"
    root.mkdir()
    (root / "ledger.sqlite").write_bytes(b"")
    return root


def _commands(store: Path, out: Path) -> dict[str, list[str]]:
    tau2 = str(shared(QWEN_AIRLINE))
    return {
        "report": [["archive", "audit", tau2, "--out", str(out)],
                   ["archive", "leaderboard", tau2, "--out", str(out)],
                   ["diagnose", str(store), "--out", str(out)],
                   ["experiment", "report", str(SQUEEZE), "--store", str(store), "--out",
                    str(out)]],
        "audit": [["audit", "comtrade", "--seeds", "0-0", "--out", str(out)],
                  ["audit", "inspect", "no_such_task", "--out", str(out)],
                  ["audit", "census", "--tasks", "builtin:comtrade", "--out", str(out)]],
        "proposals": [["audit", "propose", "ownership", "x.py", "--model", "m", "--out",
                       str(out)]],
    }


@pytest.mark.parametrize("inside", ["rep", "a/b/rep", "blobs/../rep"])
def test_every_report_command_refuses_an_out_inside_a_store(store: Path, inside: str) -> None:
    out = store / inside
    for what, argvs in _commands(store, out).items():
        for argv in argvs:
            res = agm(*argv)
            assert (res.returncode, res.stdout) == (2, ""), (argv, res)
            assert res.stderr == f"error: {out} is inside the evidence store {store}; write " \
                                 f"the {what} outside it\n", argv
    assert sorted(p.name for p in store.iterdir()) == ["ledger.sqlite"]


def test_an_out_that_is_the_store_itself_is_refused(store: Path) -> None:
    res = agm_process("diagnose", str(store), "--out", str(store))  # a real process once
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr == f"error: {store} is an evidence store; write the report outside it\n"


def test_the_store_is_named_as_given_or_in_full(store: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InsideStoreError, match=r"^S/x is inside the evidence store S; "):
        refuse_inside_store(Path("S/x"), "report")
    monkeypatch.chdir(store)  # `.` is not a spelling the user gave: the store in full
    with pytest.raises(InsideStoreError, match=f"^x is inside the evidence store {store}; "):
        refuse_inside_store(Path("x"), "report")


def test_a_link_into_a_store_is_followed(store: Path, tmp_path: Path) -> None:
    link = tmp_path / "reports"
    link.symlink_to(store / "blobs", target_is_directory=True)  # need not exist yet
    assert enclosing_store(link / "new") == store.resolve()
    with pytest.raises(InsideStoreError, match=f"inside the evidence store {store}"):
        refuse_inside_store(link / "new", "report")


def test_an_out_beside_a_store_is_accepted(store: Path, tmp_path: Path) -> None:
    for out in (tmp_path / "rep", tmp_path / "S2" / "rep", store.parent):
        assert enclosing_store(out) is None
        refuse_inside_store(out, "report")
    (tmp_path / "ledger.sqlite").mkdir()  # a folder of that name is no ledger
    assert enclosing_store(tmp_path / "rep") is None


def test_a_folder_that_cannot_be_looked_at_is_not_a_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Path.is_file raises PermissionError for a folder the user may not search (root may):
    # such a folder is not taken for a store, and the check never ends in a traceback.
    def refused(self: Path) -> bool:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "is_file", refused)
    assert enclosing_store(tmp_path / "rep") is None
