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


# ForkedCall: a function computed in a forked copy of this process, its result pickled back;
# computed here instead whenever the copy cannot give it (so nothing is lost, nothing differs).
def _where(parent: int, value: dict[str, object]) -> tuple[bool, dict[str, object]]:
    return os.getpid() != parent, value


def _raises_there(parent: int) -> int:
    raise ValueError(f"raised {'there' if os.getpid() != parent else 'here'}")


def _unpicklable(parent: int) -> tuple[bool, object]:
    return os.getpid() != parent, lambda: None


def _dies_there(parent: int) -> bool:
    if os.getpid() != parent:
        os._exit(3)  # the copy ends without a result
    return False


def _sleeps(parent: int) -> int:
    time.sleep(60 if os.getpid() != parent else 0)
    return os.getpid()


def test_a_forked_call_is_computed_in_the_copy_and_read_back() -> None:
    from agentmetrology.store.forked import ForkedCall

    value = {"rows": [1, 2.5, None, "x"], "nested": {"b": (1, 2), "a": 0.1 + 0.2}}
    with ForkedCall(_where, os.getpid(), value) as call:
        there, got = call.result()
    assert there is True and got == value and list(got) == ["rows", "nested"]
    assert got["nested"]["b"] == (1, 2)  # type: ignore[index]


@pytest.mark.parametrize("fn", [_raises_there, _unpicklable, _dies_there])
def test_a_forked_call_that_cannot_come_back_is_computed_here(fn: object) -> None:
    from agentmetrology.store.forked import ForkedCall

    with ForkedCall(fn, os.getpid()) as call:  # type: ignore[arg-type]
        if fn is _raises_there:
            with pytest.raises(ValueError, match="raised here"):  # as in one process
                call.result()
            return
        got = call.result()
    assert got is False or got[0] is False  # computed in this process


def test_a_forked_call_that_cannot_fork_is_computed_here(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    import multiprocessing.process

    from agentmetrology.store.forked import ForkedCall

    def refuse(self: object) -> None:
        raise OSError("no process to be had")

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", refuse)
    with ForkedCall(_where, os.getpid(), {"a": 1}) as call:
        assert call.result() == (False, {"a": 1})


def test_a_forked_call_left_early_leaves_no_copy() -> None:
    from agentmetrology.store.forked import ForkedCall

    with ForkedCall(_sleeps, os.getpid()) as call:
        copy = call._proc.pid
        assert _alive(copy)
    assert not _alive(copy)


def _ignores_sigterm_then_sends(parent: int) -> bytes:
    # the copy of a process whose SIGTERM handler does nothing the copy can act on
    if os.getpid() != parent:
        time.sleep(60)
    return b"x" * (1 << 20)  # more than a pipe holds: a send that would block


def test_a_copy_that_would_outlive_sigterm_is_still_stopped(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    # A handler the parent installed for SIGTERM (a run's, turning it into an ignored Ctrl-C)
    # is not the copy's: `terminate` ends it, and leaving never waits on it.
    from agentmetrology.store.forked import ForkedCall

    before = signal.signal(signal.SIGTERM, lambda s, f: None)
    try:
        start = time.monotonic()
        with ForkedCall(_ignores_sigterm_then_sends, os.getpid()) as call:
            copy = call._proc.pid
            time.sleep(0.2)
        assert time.monotonic() - start < 4  # ended by SIGTERM, not by the kill after 5 s
        assert not _alive(copy)
    finally:
        signal.signal(signal.SIGTERM, before)
