"""Fixtures of the viewer tests: one store, audit dir and archive audit per module."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from view.llm_store_fixtures import build_llm_store
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


@pytest.fixture(scope="module")
def llm_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """A store of one LLM campaign's episode and the requests the fake server received."""
    root = tmp_path_factory.mktemp("transcripts") / "s"
    # Built in a thread of its own: the campaign runs its event loop, which cannot start in a
    # thread where one runs already (Playwright's, in the browser tests).
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(build_llm_store, root).result()
