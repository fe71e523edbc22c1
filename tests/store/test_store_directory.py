"""A store is created only in a new or empty directory, never beside other files."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from agentmetrology.store import EvidenceStore, NotAStoreError
from run.campaign.campaign_fixtures import model_free
from support.agm_runs import agm


def test_a_non_empty_directory_that_is_not_a_store_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "audit-out"
    out.mkdir()
    (out / "report.html").write_text("<html></html>", encoding="utf-8")
    with pytest.raises(NotAStoreError, match=r"is not an evidence store .* not empty"):
        EvidenceStore.open(out, scrub_env=False)
    assert sorted(p.name for p in out.iterdir()) == ["report.html"]  # nothing was added


def test_a_file_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("x", encoding="utf-8")
    with pytest.raises(NotAStoreError, match="is a file"):
        EvidenceStore.open(f, scrub_env=False)


def test_a_named_pipe_a_device_and_a_dangling_link_are_named(tmp_path: Path) -> None:
    # Before, a named pipe or /dev/null as --store was called "a file", and a link to nothing
    # ended in "[Errno 17] File exists".
    fifo, dangling = tmp_path / "pipe", tmp_path / "link"
    os.mkfifo(fifo)
    dangling.symlink_to(tmp_path / "nothing")
    for path, said in ((fifo, "is a named pipe, not a directory"),
                       (Path("/dev/null"), "is a character device, not a directory"),
                       (dangling, f"is a symbolic link to nothing ({tmp_path / 'nothing'}), "
                                  "not a directory")):
        with pytest.raises(NotAStoreError) as refused:
            EvidenceStore.open(path, scrub_env=False)
        assert str(refused.value) == f"{path} {said}; give a new or empty directory"
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and not (tmp_path / "nothing").exists()


def test_campaign_run_names_a_named_pipe_in_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (tmp_path / "c.toml").write_text(model_free(tasks='["T3_duplicates"]', seeds="0"))
    res = agm("campaign", "run", str(tmp_path / "c.toml"), "--store", str(fifo))
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr == (f"error: cannot open the evidence store at {fifo}: {fifo} is a named "
                          "pipe, not a directory; give a new or empty directory\n")


def test_missing_empty_and_existing_stores_open(tmp_path: Path) -> None:
    EvidenceStore.open(tmp_path / "new" / "store", scrub_env=False).close()
    (tmp_path / "empty").mkdir()
    EvidenceStore.open(tmp_path / "empty", scrub_env=False).close()
    EvidenceStore.open(tmp_path / "empty", scrub_env=False).close()  # now a store: reopened
    assert (tmp_path / "empty" / "ledger.sqlite").exists()


def test_serve_mcp_refuses_a_non_empty_directory_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.html").write_text("x", encoding="utf-8")
    res = subprocess.run([sys.executable, "-m", "agentmetrology.cli.main", "serve", "mcp",
                          "comtrade", "--task", "T1_single_page", "--store", str(out)],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [
        f"error: {out} is not an evidence store (no ledger.sqlite) and is not empty; give a "
        "new or empty directory, or an existing store"]
    assert [p.name for p in out.iterdir()] == ["report.html"]
