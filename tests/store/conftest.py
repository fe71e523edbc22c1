"""Fixtures for the evidence store tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentmetrology.store import EvidenceStore
from support.stores import open_store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EvidenceStore]:
    """An empty store that does not scrub this machine's environment (tests set secrets)."""
    with open_store(tmp_path / "store") as st:
        yield st
