"""Injectable clocks: scripted runs and tests advance a fake clock and never sleep; LLM runs tell
real time but skip the waits a simulated environment asks for."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """A clock that tells time and waits."""

    def now(self) -> float:
        """Return the current time in seconds."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait `seconds` (a fake clock just advances)."""
        ...


class FakeClock:
    """A clock that starts at 0 and advances only when asked to sleep (never blocks)."""

    def __init__(self, start: float = 0.0) -> None:
        self.t = start

    def now(self) -> float:
        """Return the fake time."""
        return self.t

    async def sleep(self, seconds: float) -> None:
        """Advance the fake time by `seconds` without waiting."""
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        """Advance the fake time by `seconds` (what `sleep` does, without a coroutine)."""
        self.t += max(seconds, 0.0)


class RealClock:
    """Wall-clock time (monotonic) and real asyncio sleeps, for runs against live models."""

    def __init__(self) -> None:
        self._t0 = time.monotonic()

    def now(self) -> float:
        """Return seconds since the clock was made."""
        return time.monotonic() - self._t0

    async def sleep(self, seconds: float) -> None:
        """Sleep for real."""
        import asyncio  # here, not at the top: commands that only read records (export) skip it

        await asyncio.sleep(seconds)


class FastForwardClock:
    """Wall-clock time plus every wait asked of it, without waiting for any of them.

    For the episode of a live model on a simulated environment: the model's latency is real
    time, but a harness's backoff against the environment's injected 429/500 would only burn
    real time (those faults count requests, never seconds). The record still shows each wait,
    as a fake clock's would: `now()` is the real time elapsed plus the waits so far.
    """

    def __init__(self) -> None:
        self._t0 = time.monotonic()
        self.skipped = 0.0

    def now(self) -> float:
        """Return seconds since the clock was made, plus the waits skipped so far."""
        return time.monotonic() - self._t0 + self.skipped

    async def sleep(self, seconds: float) -> None:
        """Add `seconds` to the clock's time and yield to the event loop once."""
        self.skipped += max(seconds, 0.0)
        import asyncio  # as in RealClock.sleep

        await asyncio.sleep(0)
