"""Press Ctrl-C on an `agm` command at a chosen moment: SIGINT to its whole process group."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

# A command that has not stopped this long after Ctrl-C is taken as never stopping (before the
# fix, an audit whose scorer blocks ran every remaining call: minutes).
STOP_S = 90
START_S = 120  # loading Inspect and the task on a busy 2-core machine


def ctrl_c_when_begun(args: list[str], began: Path, cwd: Path,
                      env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run `agm ARGS` in `cwd`; once `began` exists (the code under test writes it), send
    SIGINT to the command's process group, as a terminal's Ctrl-C does. Return (exit code,
    stdout, stderr); a command that ends before, or does not stop, fails the test."""
    full_env = {**os.environ, **(env or {}), "AGM_TEST_STARTED": str(began)}
    proc = subprocess.Popen([sys.executable, "-m", "agentmetrology.cli.main", *args], cwd=cwd,
                            env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + START_S
        while not began.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # well inside the call (which takes seconds)
        if proc.poll() is not None or not began.exists():
            proc.kill()
            out, err = proc.communicate()
            raise AssertionError(f"the call never began before Ctrl-C (exit "
                                 f"{proc.returncode}): {err[-2000:]}")
        os.killpg(proc.pid, signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running {STOP_S} s after Ctrl-C") from None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    return proc.returncode, out, err
