"""Helpers of the incremental check and status tests: a one-campaign store, copied per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentmetrology.store import verify_memo
from archive.agm_fixtures import build_store


def first_store(factory: pytest.TempPathFactory) -> Path:
    """Return a new store of one recorded campaign, `first`."""
    return build_store(factory.mktemp("incremental") / "s", name="first")


def fresh_copy(first: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Return a copy of `first` with a check cache of its own (no head verified, no memo)."""
    monkeypatch.setenv(verify_memo.MEMO_ENV, str(tmp_path / "cache"))
    return Path(shutil.copytree(first, tmp_path / "store"))


def append(store: Path) -> None:
    """Record a second campaign, `second`, into the store through the ledger's API."""
    build_store(store, name="second")
