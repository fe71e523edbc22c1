"""The clocks: a fake one only advances; a fast-forward one tells real time plus skipped waits."""

from __future__ import annotations

import asyncio
import time

from agentmetrology.records.clock import FakeClock, FastForwardClock


def test_a_fake_clock_advances_by_each_wait_and_never_back() -> None:
    clock = FakeClock()
    asyncio.run(clock.sleep(2.0))
    asyncio.run(clock.sleep(-5.0))  # a negative wait is no wait
    assert clock.now() == 2.0


def test_a_fast_forward_clock_adds_each_wait_to_real_time_without_waiting() -> None:
    clock = FastForwardClock()
    start = time.monotonic()

    async def waits() -> None:
        # An hour's backoff must not block: the timeout fails the test long before it would.
        await asyncio.wait_for(clock.sleep(3600.0), timeout=30)
        await clock.sleep(-1.0)

    asyncio.run(waits())
    real = time.monotonic() - start
    assert clock.skipped == 3600.0
    assert 3600.0 <= clock.now() <= 3600.0 + real + 1.0
    first = clock.now()
    assert clock.now() >= first  # real time only moves forward


def test_a_fast_forward_sleep_lets_other_tasks_run() -> None:
    clock, order = FastForwardClock(), []

    async def waiter() -> None:
        await clock.sleep(8.0)
        order.append("waiter")

    async def other() -> None:
        order.append("other")

    async def both() -> None:
        await asyncio.gather(waiter(), other())

    asyncio.run(both())
    assert order == ["other", "waiter"]  # the wait yielded to the loop once
