"""A forked worker ends with the process that forked it, even when that one is killed outright."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

# The parent forks a worker that would sleep for a minute, prints the worker's pid, and waits;
# the test kills the parent with SIGKILL (no shutdown runs) and watches the worker.
_PARENT = """
import os, sys, time
from agentmetrology.store.forked import die_with_parent
parent = os.getpid()
pid = os.fork()
if pid == 0:
    if sys.argv[1] == "guarded":
        die_with_parent(parent)
    time.sleep(60)
    os._exit(0)
print(pid, flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def _worker_after_parent_killed(mode: str) -> tuple[int, bool]:
    proc = subprocess.Popen([sys.executable, "-c", _PARENT, mode], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    worker = int(proc.stdout.readline())
    time.sleep(0.3)  # the worker has made its request
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return worker, _alive(worker)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_guarded_worker_dies_with_its_killed_parent() -> None:
    _, alive = _worker_after_parent_killed("guarded")
    assert not alive


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_an_unguarded_worker_outlives_it() -> None:  # the control: the guard is what ends it
    worker, alive = _worker_after_parent_killed("unguarded")
    try:
        assert alive
    finally:
        os.kill(worker, signal.SIGKILL)
