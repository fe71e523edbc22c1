"""Worker processes forked from this one, to run work beside it on the machine's other cores.

Forked, a worker starts with this process's code already imported (a process started afresh
would import it all again, most of what a short job costs). A worker ignores Ctrl-C: the
terminal sends it to the whole process group, and the process that started the workers stops
them (`ProcessPoolExecutor.shutdown`) however it ends, so no worker outlives it and none
prints a traceback of its own. A parent killed outright (SIGKILL) cannot stop them: on Linux a
worker asks the kernel for SIGKILL when its parent dies (`die_with_parent`), so none is left
running, or blocked on a pipe nobody reads, after `kill -9` of the command.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import pickle
import signal
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")


def usable_cpus() -> int:
    """Return the CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def can_fork() -> bool:
    """Return True when workers can be forked here."""
    return "fork" in multiprocessing.get_all_start_methods()


def forked_pool(workers: int, initializer: Callable[..., None] | None = None,
                initargs: tuple[Any, ...] = ()) -> ProcessPoolExecutor:
    """Return a pool of `workers` forked processes (see the module docstring); each runs
    `initializer(*initargs)` first (handed over by the fork, never pickled)."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                               initializer=_start, initargs=(os.getpid(), initializer, initargs))


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """In a forked worker: be killed when the process `parent` ends (Linux; elsewhere nothing),
    and end now if it already has."""
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl to be had: the caller's shutdown remains
        return
    if os.getppid() != parent:  # it ended before the request was made
        os._exit(1)


def worker_start(parent: int) -> None:
    """Begin a forked worker's life: ignore Ctrl-C (the parent stops us, module docstring), end
    on SIGTERM whatever handler the parent had (a run's turns it into a Ctrl-C, ignored here:
    the parent's `terminate` would not end us), and end with the process `parent`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(parent)


def _start(parent: int, initializer: Callable[..., None] | None,
           initargs: tuple[Any, ...]) -> None:
    worker_start(parent)
    if initializer is not None:
        initializer(*initargs)


def start_forked(target: Callable[..., None], args: tuple[Any, ...]
                 ) -> tuple[BaseProcess | None, Connection | None]:
    """Start `target(*args, send, recv, parent)` in a forked process (a daemon: it is handed
    over by the fork, never pickled) and return it with the end of the pipe it sends on that
    this process reads; (None, None) when no process can be had. `target` closes `recv`, its
    copy of this process's end (a send could otherwise wait for ever on a full pipe)."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, daemon=True, args=(*args, send, recv, os.getpid()))
    try:
        proc.start()
    except OSError:  # no process to be had: the caller does the work itself
        recv.close()
        send.close()
        return None, None
    send.close()  # the process holds its own end: EOF here when it ends without a result
    return proc, recv


def stop_forked(proc: BaseProcess | None, recv: Connection | None) -> None:
    """Stop a process `start_forked` started if it still runs (the work it does is no longer
    wanted: an error, Ctrl-C), close this process's end of its pipe (a process blocked sending
    on it then ends) and wait for it; one that outlives SIGTERM by STOP_WAIT_S is killed:
    leaving never hangs on it."""
    if proc is not None and proc.is_alive():
        proc.terminate()
    if recv is not None:
        recv.close()
    if proc is not None:
        proc.join(STOP_WAIT_S)
        if proc.is_alive():
            proc.kill()
            proc.join()

STOP_WAIT_S = 5.0

_NO_RESULT = b""  # what a forked call sends when its result cannot come back (computed here)


class ForkedCall(Generic[T]):
    """`fn(*args)` computed in a forked copy of this process while this one goes on; a context
    manager (leaving it stops the copy if it still runs). `result` returns the copy's result,
    pickled back, or computes it here when the copy could not start, died, raised or sent a
    result that cannot be pickled: whatever `fn` raises is raised here, as in one process.

    Fork only where no other thread of this process runs: a fork copies the calling thread
    alone, and a lock another thread held would never be released in the copy. The copy
    shares this process's heap copy-on-write, so `fn` reads large inputs without pickling them.
    """

    def __init__(self, fn: Callable[..., T], *args: Any) -> None:
        self.fn, self.args = fn, args
        self._proc: BaseProcess | None = None
        self._recv: Connection | None = None

    def __enter__(self) -> ForkedCall[T]:
        self._proc, self._recv = start_forked(_forked_call, (self.fn, self.args))
        return self

    def __exit__(self, *exc: object) -> None:
        stop_forked(self._proc, self._recv)
        self._proc = self._recv = None

    def result(self) -> T:
        """Return `fn(*args)`: the copy's result, else computed here."""
        data = _NO_RESULT
        if self._recv is not None:
            try:
                data = self._recv.recv_bytes()
            except (EOFError, OSError):
                data = _NO_RESULT
            self._recv.close()
            self._recv = None
        if data != _NO_RESULT:
            try:
                return cast(T, pickle.loads(data))
            except Exception:  # a result that does not read back: computed here
                pass
        return self.fn(*self.args)


def _forked_call(fn: Callable[..., Any], args: tuple[Any, ...], send: Connection,
                 recv: Connection, parent: int) -> None:
    """In the forked copy: send `fn(*args)` pickled, or `_NO_RESULT` when it raises or cannot
    be pickled (the parent then computes it, and meets what it raises)."""
    worker_start(parent)
    recv.close()
    try:
        data = pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:  # the parent runs it again and raises it there
        data = _NO_RESULT
    try:
        send.send_bytes(data)
        send.close()
    except OSError:  # the parent no longer reads (it left early): nothing to tell
        pass
