"""Fixtures of the viewer tests: one store, audit dir and archive audit per module."""

from __future__ import annotations

from pathlib import Path

import pytest

from view.view_fixtures import build_archive, build_audit_dir, build_store


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store built once per module (tests never write it; one test proves that)."""
    return build_store(tmp_path_factory.mktemp("view") / "store")


@pytest.fixture(scope="module")
def audit_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An audit dir with card.json, audit.json, report.html, report.md and a stray file."""
    return build_audit_dir(tmp_path_factory.mktemp("view") / "audit")


@pytest.fixture(scope="module")
def archive_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An archive audit file (archive.json) alone in its folder with a secret neighbour."""
    path = build_archive(tmp_path_factory.mktemp("view") / "arch" / "archive.json")
    (path.parent / "secret.txt").write_text("do not serve\n")
    return path
