"""Fixtures: the extension installed by an `inspect_ai` entry point, and evals run in a fresh
process through it (so nothing is registered in-process before Inspect looks the name up).

The evals the modules read are written once per session by one process
(tests/support/inspect_logs.py: `inspect_logs`); `run_evals` starts a process of its own, for a
test about a fresh process.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from support.inspect_logs import make_inspect_env, run_batch, shared_logs

RunEval = Callable[..., Path]
RunEvals = Callable[[list[tuple[str, str, Path | None, dict[str, object]]]], list[Path]]


@pytest.fixture(scope="session")
def inspect_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Return os.environ with our `inspect_ai` entry point (and the toy_sum plug-in) installed."""
    return make_inspect_env(tmp_path_factory.mktemp("site"),
                            tmp_path_factory.mktemp("inspect-default-logs"))


@pytest.fixture(scope="session")
def inspect_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Return the log path of every eval in support.inspect_logs.EVALS, by name."""
    return shared_logs(tmp_path_factory)


@pytest.fixture(scope="session")
def run_evals(inspect_env: dict[str, str],
              tmp_path_factory: pytest.TempPathFactory) -> RunEvals:
    """Return a function running mock-model evals by name in one new process; their log paths.

    Each eval is (env, behaviour, log_dir or None, task_args).
    """

    def run(evals: list[tuple[str, str, Path | None, dict[str, object]]]) -> list[Path]:
        return run_batch(inspect_env, [
            {"env": env, "behaviour": behaviour, "task_args": args,
             "log_dir": str(log_dir or tmp_path_factory.mktemp("logs"))}
            for env, behaviour, log_dir, args in evals])

    return run


@pytest.fixture(scope="session")
def run_eval(run_evals: RunEvals) -> RunEval:
    """Return a function running one mock-model eval by name in a new process; its log path."""

    def run(env: str, behaviour: str, log_dir: Path | None = None, **task_args: object) -> Path:
        (path,) = run_evals([(env, behaviour, log_dir, task_args)])
        return path

    return run
