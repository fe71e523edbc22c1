"""A scorer that blocks the event loop, stopped when one of its steps outlasts its limit.

`asyncio.wait_for` cancels a scorer only where it yields to the event loop: one that makes a
synchronous call (time.sleep, a blocking HTTP request, a long loop in Python) held the whole
audit for as long as it blocked, for ever on a socket that never answers (a SIGTERM did not end
it either). While a run is `watched`, a scorer call (and the task's own solver in the do-nothing
run) is awaited through `stepped(coroutine, limit)`, which notes when each of its steps (the
code run between two yields to the loop) starts and clears the note when the step yields or
ends. A watchdog thread that sees one step running longer than its limit interrupts the loop's
thread with a signal whose handler raises `LoopBlocked` there, and only while that step's note
is still set: so the exception can only land in the step that outlasted its limit (the
scorer's own frames, or what they called), never in another sample's scorer or in Inspect.
The scorer's call then ends INVALID as a timeout, and its sample goes on. Each step is timed
on its own: many short synchronous steps of concurrent samples never add up to a timeout.

The handler takes no lock (it runs in the main thread, between any two bytecodes of it). Python
runs signal handlers in the main thread only: a run in another thread, or where the signal
already has a handler of its own, is not watched (as before: such a scorer holds the run).
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Awaitable, Generator, Iterator
from types import FrameType
from typing import Any, TypeVar

POLL_S = 0.1  # how often the watchdog looks at the step running
_SIGNAL = signal.SIGUSR2  # unused by Inspect, asyncio and agm; its default would end the process

T = TypeVar("T")


class LoopBlocked(BaseException):
    """Raised in a step that held the event loop longer than its limit.

    A BaseException, as KeyboardInterrupt is: a scorer's `except Exception` does not swallow it.
    """


class _Watch:
    """The watched step running on the loop's thread now: (its start, its limit), or None."""

    def __init__(self) -> None:
        self.step: tuple[float, float] | None = None
        self.stop = threading.Event()


_WATCH: _Watch | None = None  # the run being watched (one at a time: the main thread's)


def _overdue(step: tuple[float, float] | None) -> bool:
    return step is not None and time.monotonic() - step[0] > step[1]


def _handler(signum: int, frame: FrameType | None) -> None:
    watch = _WATCH
    step = None if watch is None else watch.step
    if watch is None or step is None or not _overdue(step):
        return  # the step yielded or ended since the watchdog looked: nothing to interrupt
    watch.step = (time.monotonic(), step[1])  # once per limit: the step is timed afresh
    raise LoopBlocked(f"held the event loop for more than {step[1]:g} s without yielding")


def _watchdog(watch: _Watch, target: int) -> None:
    while not watch.stop.wait(POLL_S):
        if _overdue(watch.step):
            try:
                signal.pthread_kill(target, _SIGNAL)
            except OSError:  # the thread is gone (ProcessLookupError): nothing to interrupt
                return
            watch.stop.wait(POLL_S)  # let the handler run before looking again


@contextlib.contextmanager
def watched() -> Iterator[None]:
    """Watch the steps of the calls made through `stepped` inside (see the module docstring)."""
    global _WATCH
    if (threading.current_thread() is not threading.main_thread() or _WATCH is not None
            or signal.getsignal(_SIGNAL) is not signal.SIG_DFL):
        yield  # not watched: as before
        return
    watch = _Watch()
    previous = signal.signal(_SIGNAL, _handler)
    _WATCH = watch
    dog = threading.Thread(target=_watchdog, args=(watch, threading.get_ident()),
                           name="agm-loop-watch", daemon=True)
    dog.start()
    try:
        yield
    finally:
        watch.stop.set()
        dog.join()
        _WATCH = None
        signal.signal(_SIGNAL, previous)


class _Stepped(Awaitable[T]):
    """A coroutine awaited with each of its steps timed against `limit` (`stepped`)."""

    __slots__ = ("_coro", "_limit")

    def __init__(self, coro: Awaitable[T], limit: float) -> None:
        self._coro, self._limit = coro, limit

    def __await__(self) -> Generator[Any, Any, T]:
        inner = self._coro.__await__()
        watch = _WATCH
        if watch is None:  # not watched: awaited as it is
            return (yield from inner)
        sent: Any = None
        thrown: BaseException | None = None
        while True:
            outer = watch.step  # (a step of an enclosing watched call: restored after)
            watch.step = (time.monotonic(), self._limit)
            try:
                got = inner.send(sent) if thrown is None else inner.throw(thrown)
            except StopIteration as done:
                return done.value
            finally:
                watch.step = outer
            try:
                sent, thrown = (yield got), None
            except BaseException as exc:  # thrown in (a cancellation): passed on to the step
                sent, thrown = None, exc


def stepped(coro: Awaitable[T], limit: float) -> Awaitable[T]:
    """Return `coro` to await with each of its steps timed against `limit` seconds while the
    run is `watched` (a step past it ends in LoopBlocked); as it is otherwise."""
    return _Stepped(coro, limit)
