"""An Inspect run of our task in which no sample could be measured says so in words, and a
run where some could not says how many and why (the task-end hook), through Inspect itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.inspect_logs import INSPECT_MOCK, make_inspect_env

T3 = {"task": "T3_duplicates", "seeds": "0-1", "level": "L2"}


def _run(tmp_path: Path, behaviour: str,
         seeds: str = "0-1") -> subprocess.CompletedProcess[str]:
    env = make_inspect_env(tmp_path / "site", tmp_path / "default-logs")
    spec = [{"env": "comtrade", "behaviour": behaviour, "task_args": {**T3, "seeds": seeds},
             "log_dir": str(tmp_path / "logs")}]
    return subprocess.run([sys.executable, str(INSPECT_MOCK), json.dumps(spec)], env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def test_no_measured_samples_is_said_with_the_reason(tmp_path: Path) -> None:
    res = _run(tmp_path, "raise")
    assert res.returncode == 0, res.stderr[-2000:]
    lines = [x for x in res.stderr.splitlines() if x.startswith("agentmetrology: ")]
    assert lines == [
        f"agentmetrology: comtrade/{scorer}: no measured samples (2 excluded: infra_error: "
        "model mockllm/model failed: RuntimeError: provider down (simulated) (2)); no metric "
        "is a measurement" for scorer in ("ground_truth_f1", "shape_judge")]


def test_a_fully_measured_run_says_only_why_one_sample_has_no_ci(tmp_path: Path) -> None:
    res = _run(tmp_path, "agent:rule", seeds="0")  # the mock replays one seed's calls
    assert res.returncode == 0, res.stderr[-2000:]
    # nothing unmeasured; over one sample the bootstrap CI has no bounds (stats.bootstrap),
    # which the log can only show as absent numbers: said here, in words
    lines = [x for x in res.stderr.splitlines() if x.startswith("agentmetrology: ")]
    assert lines == [
        f"agentmetrology: comtrade/{scorer}: ci_mean has no ci_low/ci_high, no interval: 1 "
        "measured sample; a bootstrap over 1 measured sample has 1 distinct resample, an "
        "interval needs at least 3 measured samples" for scorer in ("ground_truth_f1",
                                                                    "shape_judge")]
