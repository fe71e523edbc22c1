"""Fixtures: the extension installed by an `inspect_ai` entry point, and evals run in a fresh
process through it (so nothing is registered in-process before Inspect looks the name up)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import agentmetrology

HERE = Path(__file__).resolve().parent
PLUGIN_DIR = HERE.parent / "plugin_env"
SRC = HERE.parents[1] / "src"

RunEval = Callable[..., Path]
RunEvals = Callable[[list[tuple[str, str, Path | None, dict[str, object]]]], list[Path]]


def _dist_info(site: Path, name: str, entry_points: str) -> None:
    info = site / f"{name}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(entry_points)


@pytest.fixture(scope="session")
def inspect_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Return os.environ with our `inspect_ai` entry point (and the toy_sum plug-in) installed."""
    site = tmp_path_factory.mktemp("site")
    # Its own distribution name: one called agentmetrology would shadow the installed one.
    _dist_info(site, "agentmetrology_inspect_test",
               "[inspect_ai]\nagentmetrology = agentmetrology.inspect_ext.registry\n")
    _dist_info(site, "toy_sum_env", "[agentmetrology.environments]\ntoy_sum = toy_sum:SPEC\n")
    env = dict(os.environ)
    # This tree's sources go first only when the installed package is another tree's (a
    # worktree on a shared venv). When it is this tree's own editable install they must not:
    # `src/agentmetrology.egg-info` would then shadow the installed metadata, Inspect would not
    # see an editable package and would register our tasks without the `agentmetrology/` prefix.
    own = Path(agentmetrology.__file__).resolve().parent.parent == SRC
    env["PYTHONPATH"] = os.pathsep.join(
        [*([] if own else [str(SRC)]), str(site), str(PLUGIN_DIR),
         *filter(None, [env.get("PYTHONPATH")])])
    env["INSPECT_LOG_DIR"] = str(tmp_path_factory.mktemp("inspect-default-logs"))
    return env


@pytest.fixture(scope="session")
def run_evals(inspect_env: dict[str, str],
              tmp_path_factory: pytest.TempPathFactory) -> RunEvals:
    """Return a function running mock-model evals by name in one subprocess; their log paths.

    Each eval is (env, behaviour, log_dir or None, task_args).
    """

    def run(evals: list[tuple[str, str, Path | None, dict[str, object]]]) -> list[Path]:
        specs = [{"env": env, "behaviour": behaviour, "task_args": args,
                  "log_dir": str(log_dir or tmp_path_factory.mktemp("logs"))}
                 for env, behaviour, log_dir, args in evals]
        res = subprocess.run([sys.executable, str(HERE / "inspect_mock.py"), json.dumps(specs)],
                             env=inspect_env, capture_output=True, text=True, timeout=900,
                             check=False)
        assert res.returncode == 0, res.stderr[-3000:]
        lines = res.stdout.strip().splitlines()[-len(specs):]
        return [Path(line.removeprefix("file://")) for line in lines]

    return run


@pytest.fixture(scope="session")
def run_eval(run_evals: RunEvals) -> RunEval:
    """Return a function running one mock-model eval by name in a subprocess; its log path."""

    def run(env: str, behaviour: str, log_dir: Path | None = None, **task_args: object) -> Path:
        (path,) = run_evals([(env, behaviour, log_dir, task_args)])
        return path

    return run
