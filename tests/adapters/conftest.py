"""Fixtures of the adapter tests: the test plug-in environment registered in-process."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentmetrology.envs import registry

PLUGIN_DIR = Path(__file__).resolve().parents[1] / "plugin_env"


@pytest.fixture
def toy_sum() -> Iterator[str]:
    """Register tests/plugin_env/toy_sum.py (its scorer is INVALID for a non-integer total)."""
    sys.path.insert(0, str(PLUGIN_DIR))
    try:
        from toy_sum import SPEC  # type: ignore[import-not-found]
        registry.register(SPEC)
        yield SPEC.name
    finally:
        registry.unregister("toy_sum")
        sys.path.remove(str(PLUGIN_DIR))
