"""Injectable clocks: scripted runs and tests advance a fake clock and never sleep."""

from __future__ import annotations

import asyncio
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
        await asyncio.sleep(seconds)
