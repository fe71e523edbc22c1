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
import signal
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any


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
    """Begin a forked worker's life: ignore Ctrl-C (the parent stops us, module docstring) and
    end with the process `parent`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)


def _start(parent: int, initializer: Callable[..., None] | None,
           initargs: tuple[Any, ...]) -> None:
    worker_start(parent)
    if initializer is not None:
        initializer(*initargs)
