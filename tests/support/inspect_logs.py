"""Every Inspect log the suite's Inspect modules read, written once per test session.

Starting an Inspect process costs about 4.5 s of CPU before it runs anything (Inspect's import,
then every `inspect_ai` entry point, inspect_evals' registry included); four modules each
started their own. `shared_logs` runs every eval of `EVALS` (and tests/archive's demo log) in one
fresh `inspect_mock.py` process, which finds our tasks only by name through the `inspect_ai`
entry point. Under pytest-xdist the workers share that output: it lives in the session's common
temporary folder, and a file lock makes the first worker that needs it build it while any other
waits. Without xdist it lives in the session's own temporary folder. Tests only read the logs.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import agentmetrology

TESTS = Path(__file__).resolve().parents[1]
SRC = TESTS.parent / "src"
PLUGIN_DIR = TESTS / "plugin_env"
INSPECT_MOCK = TESTS / "inspect_ext" / "inspect_mock.py"
# tests/inspect_ext/logs/inspect_log_writer.py's log: errors, NaN, epochs
ARCHIVE_DEMO = "archive_demo"

Eval = tuple[str, str, dict[str, object]]  # (environment, mock behaviour, task arguments)
T3 = {"task": "T3_duplicates", "seeds": "0"}
# test_eval.py: at L1 the model answers the harness's question with each text; the rule agent
# that gives the same answers.
L1_RUNS = {"RETRY": "l1:always-retry", "SKIP, the page is gone": "l1:always-skip"}
# test_plugins.py: built-in environments run by a model replaying one of their scripted agents.
BUILTIN_RUNS = [
    ("researchops", "lr_1", "scripted:overfit"),  # the composite verifier passes an overfit run
    ("permission", "flag_overdue", "scripted:overreach"),  # goal met, contract broken
]
TOY_AGENTS = ("adder", "forgetful")  # test_plugins.py: the third-party toy_sum plug-in's agents

EVALS: dict[str, Eval] = {
    # test_eval.py, one per behaviour on T3 seed 0. "L2" comes first: the determinism test
    # compares the first eval of this process with the same eval in a fresh one.
    # test_roundtrip.py audits "L2", "L0" and "raise" together.
    "L2": ("comtrade", "agent:rule", {**T3, "level": "L2"}),
    "L0": ("comtrade", "agent:rule", {**T3, "level": "L0"}),
    "text": ("comtrade", "text", {**T3, "level": "L2"}),
    "malformed": ("comtrade", "malformed", {**T3, "level": "L2"}),
    "raise": ("comtrade", "raise", {**T3, "level": "L2"}),
    **{f"L1:{a}": ("comtrade", f"answer:{a}", {"task": "T4_rate_limit_429", "seeds": "0",
                                               "level": "L1"}) for a in L1_RUNS},
    "seeds": ("comtrade", "text", {"task": "T1_single_page,T3_duplicates", "seeds": "0-2",
                                   "level": "L2"}),
    "pager": ("comtrade", "pager", {"task": "T6_page_drift", "seeds": "0-3", "level": "L0"}),
    # test_plugins.py
    **{env: (env, f"agent:{agent}", {"task": task, "seeds": "0"})
       for env, task, agent in BUILTIN_RUNS},
    **{f"toy_sum:{a}": ("toy_sum", f"agent:scripted:{a}", {"task": "sum3", "seeds": "0"})
       for a in TOY_AGENTS},
}


TOY_SUM_ENTRY_POINT = "[agentmetrology.environments]\ntoy_sum = toy_sum:SPEC\n"


def dist_info(site: Path, name: str, entry_points: str) -> None:
    """Install distribution `name` (metadata and entry points only) into the folder `site`."""
    info = site / f"{name}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(entry_points)


def make_inspect_env(site: Path, default_logs: Path) -> dict[str, str]:
    """Return os.environ with our `inspect_ai` entry point (and the toy_sum plug-in) installed.

    `site` (a new folder whose name contains "site") gets the two distributions' metadata.
    """
    # Its own distribution name: one called agentmetrology would shadow the installed one.
    dist_info(site, "agentmetrology_inspect_test",
               "[inspect_ai]\nagentmetrology = agentmetrology.inspect_ext.registry\n")
    dist_info(site, "toy_sum_env", TOY_SUM_ENTRY_POINT)
    env = dict(os.environ)
    # This tree's sources go first only when the installed package is another tree's (a
    # worktree on a shared venv). When it is this tree's own editable install they must not:
    # `src/agentmetrology.egg-info` would then shadow the installed metadata, Inspect would not
    # see an editable package and would register our tasks without the `agentmetrology/` prefix.
    own = Path(agentmetrology.__file__).resolve().parent.parent == SRC
    env["PYTHONPATH"] = os.pathsep.join(
        [*([] if own else [str(SRC)]), str(site), str(PLUGIN_DIR),
         *filter(None, [env.get("PYTHONPATH")])])
    env["INSPECT_LOG_DIR"] = str(default_logs)
    return env


def _run_mock(env: dict[str, str], specs: list[dict[str, Any]],
              cwd: Path | None = None) -> list[Path]:
    """Run inspect_mock.py's evals (its JSON specs) in one fresh process; return the log paths."""
    res = subprocess.run([sys.executable, str(INSPECT_MOCK), json.dumps(specs)], env=env,
                         cwd=cwd, capture_output=True, text=True, timeout=900, check=False)
    assert res.returncode == 0, res.stderr[-3000:]
    lines = res.stdout.strip().splitlines()[-len(specs):]
    return [Path(line.removeprefix("file://")) for line in lines]


def _build(folder: Path) -> dict[str, str]:
    shutil.rmtree(folder, ignore_errors=True)  # what a failed build left
    home = folder / "home"  # Inspect's caches and state stay out of the real home
    home.mkdir(parents=True)
    env = {**make_inspect_env(folder / "site", folder / "inspect-default-logs"),
           "HOME": str(home), "INSPECT_DISPLAY": "none"}
    names = [*EVALS, ARCHIVE_DEMO]
    specs: list[dict[str, Any]] = [
        {"env": e, "behaviour": b, "task_args": a, "log_dir": str(folder / "logs" / str(i))}
        for i, (e, b, a) in enumerate(EVALS.values())]
    specs.append({"archive_demo": True, "log_dir": str(folder / "logs" / ARCHIVE_DEMO)})
    paths = _run_mock(env, specs, cwd=home)
    return {name: str(path) for name, path in zip(names, paths, strict=True)}


def shared_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Return the log path of every eval of EVALS and of ARCHIVE_DEMO, built once per session."""
    base = tmp_path_factory.getbasetemp()
    # An xdist worker's basetemp is <session>/popen-gwN: the parent is the session's own
    # folder, common to its workers and to no other session.
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "inspect-logs"
    index = root / "inspect-logs.json"
    with (root / "inspect-logs.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not index.exists():
            built = _build(folder)
            partial = index.with_suffix(".partial")
            partial.write_text(json.dumps(built))
            partial.replace(index)  # a failed build leaves no index: the next caller retries
    return {name: Path(path) for name, path in json.loads(index.read_text()).items()}
