"""A scorer that blocks the event loop, stopped when it has blocked for longer than its limit.

`asyncio.wait_for` cancels a scorer only where it yields to the event loop: one that makes a
synchronous call (time.sleep, a blocking HTTP request, a long loop in Python) held the whole
audit for as long as it blocked, for ever on a socket that never answers (a SIGTERM did not end
it either). While a run is `watched`, the event loop beats every BEAT_S seconds as long as it is
free. Each scorer call (and the task's own solver in the do-nothing run) is `in_flight` with its
limit; a watchdog thread that sees no beat for longer than the largest limit in flight knows
that one piece of synchronous code has held the loop that long, and interrupts the loop's
thread with a signal whose handler raises `LoopBlocked` in whatever runs there: the code that
blocks it. The scorer's call then ends INVALID as a timeout, and its sample goes on.

The handler raises only while the loop is still blocked (a beat since the watchdog looked: it
ignores the signal), so what it interrupts is the blocking code, not the run's own. Python runs
signal handlers in the main thread only: a run in another thread, or where the signal already
has a handler of its own, is not watched (as before: such a scorer still holds the run).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType

BEAT_S = 0.1  # how often a free event loop beats
_SIGNAL = signal.SIGUSR2  # unused by Inspect, asyncio and agm; its default would end the process


class LoopBlocked(BaseException):
    """Raised in code that held the event loop longer than the limit of what was in flight.

    A BaseException, as KeyboardInterrupt is: a scorer's `except Exception` does not swallow it.
    """


class _Watch:
    """The beats of one run's event loop and the limits of the calls in flight on it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.limits: dict[int, float] = {}  # id of a call in flight -> its limit in seconds
        self.last_beat = time.monotonic()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stop = threading.Event()
        self.fired_limit = 0.0

    def beat(self) -> None:
        """Note that the loop is free, and beat again in BEAT_S (on the loop, while watched)."""
        self.last_beat = time.monotonic()
        if not self.stop.is_set() and self.loop is not None and not self.loop.is_closed():
            self.loop.call_later(BEAT_S, self.beat)

    def blocked_beyond(self) -> float | None:
        """Return the limit the loop has been held beyond (None: it is not)."""
        with self.lock:
            limit = max(self.limits.values(), default=None)
        if limit is None or time.monotonic() - self.last_beat <= limit:
            return None
        return limit


_WATCH: _Watch | None = None  # the run being watched (one at a time: the main thread's)
_KEYS = itertools.count()  # one key per call in flight


def _handler(signum: int, frame: FrameType | None) -> None:
    watch = _WATCH
    if watch is None:
        return
    limit = watch.blocked_beyond()
    if limit is None:  # the loop beat since the watchdog looked: nothing to interrupt
        return
    watch.last_beat = time.monotonic()  # once per limit: a second block is timed afresh
    raise LoopBlocked(f"held the event loop for more than {limit:g} s without yielding")


def _watchdog(watch: _Watch, target: int) -> None:
    while not watch.stop.wait(BEAT_S):
        if watch.blocked_beyond() is not None:
            try:
                signal.pthread_kill(target, _SIGNAL)
            except (OSError, ProcessLookupError):  # the thread is gone: nothing to interrupt
                return
            watch.stop.wait(BEAT_S)  # let the handler run before looking again


@contextlib.contextmanager
def watched() -> Iterator[None]:
    """Watch the event loop of the run made inside (see the module docstring)."""
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


@contextlib.contextmanager
def in_flight(limit: float) -> Iterator[None]:
    """Count a call (a scorer's, a solver's) as in flight on the running loop, with its limit
    in seconds; a no-op where the run is not watched."""
    watch = _WATCH
    if watch is None:
        yield
        return
    loop = asyncio.get_running_loop()
    if watch.loop is not loop:  # the run's loop, met for the first time: it starts beating
        watch.loop = loop
        watch.beat()
    key = next(_KEYS)
    with watch.lock:
        watch.limits[key] = limit
    try:
        yield
    finally:
        with watch.lock:
            watch.limits.pop(key, None)
