"""A store is created only in a new or empty directory, never beside other files."""

from __future__ import annotations

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
