"""Fixtures: the extension installed by an `inspect_ai` entry point, and evals run in a fresh
process through it (so nothing is registered in-process before Inspect looks the name up).

The evals the modules read are written once per session by one process
(tests/support/inspect_logs.py: `inspect_logs`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.inspect_logs import make_inspect_env, shared_logs


@pytest.fixture(scope="session")
def inspect_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Return os.environ with our `inspect_ai` entry point (and the toy_sum plug-in) installed."""
    return make_inspect_env(tmp_path_factory.mktemp("site"),
                            tmp_path_factory.mktemp("inspect-default-logs"))


@pytest.fixture(scope="session")
def inspect_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Return the log path of every eval in support.inspect_logs.EVALS, by name."""
    return shared_logs(tmp_path_factory)
