"""A store is created only in a new or empty directory, never beside other files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentmetrology.store import EvidenceStore, NotAStoreError


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
