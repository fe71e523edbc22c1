"""A scorer that blocks the event loop is stopped at its limit (inspect_ext.audit.loop_watch)."""

import asyncio
import signal
import threading
import time
from pathlib import Path
from typing import Any

from agentmetrology.inspect_ext.audit.load import load_task
from agentmetrology.inspect_ext.audit.loop_watch import LoopBlocked, stepped, watched
from agentmetrology.inspect_ext.audit.scorer_call import TIMED_OUT
from agentmetrology.inspect_ext.audit.target import audit_inspect

TASKS = Path(__file__).resolve().parent / "tasks" / "toy_tasks.py"


async def _sleeps(seconds: float) -> str:
    time.sleep(seconds)  # never yields
    return "finished"


def _blocks(seconds: float, limit: float) -> Any:
    async def main() -> str:
        try:
            return await stepped(_sleeps(seconds), limit)
        except LoopBlocked as exc:
            return str(exc)
    return main


def test_a_step_holding_the_loop_past_its_limit_is_interrupted() -> None:
    t0 = time.monotonic()
    with watched():
        said = asyncio.run(_blocks(30, 0.3)())
    assert time.monotonic() - t0 < 5
    assert said == "held the event loop for more than 0.3 s without yielding"
    assert signal.getsignal(signal.SIGUSR2) is signal.SIG_DFL  # restored


def test_steps_that_yield_or_end_in_time_are_left_alone() -> None:
    async def yields() -> str:
        for _ in range(8):  # 0.8 s in all, never 0.3 s at once
            time.sleep(0.1)
            await asyncio.sleep(0)
        return "finished"

    with watched():
        assert asyncio.run(_blocks(0.1, 0.3)()) == "finished"

        async def main() -> str:
            return await stepped(yields(), 0.3)
        assert asyncio.run(main()) == "finished"


def test_each_step_is_timed_on_its_own() -> None:
    # Before (the loop's beats timed), three concurrent calls each blocking 0.7 s against a
    # limit of 1 s held the loop 2.1 s together, and the second was called a timeout.
    async def main() -> list[str]:
        return list(await asyncio.gather(*(_blocks(0.7, 1.0)() for _ in range(3))))

    with watched():
        assert asyncio.run(main()) == ["finished"] * 3


def test_code_outside_a_watched_call_is_never_interrupted() -> None:
    # Before, a scorer step of 0.95 s (limit 1 s) followed by 0.4 s of the harness's own
    # synchronous work raised LoopBlocked in the harness.
    async def harness() -> str:
        said = await _blocks(0.95, 1.0)()
        time.sleep(0.4)  # not a watched call's step
        await asyncio.sleep(0.2)
        return said

    with watched():
        assert asyncio.run(harness()) == "finished"


def test_a_cancellation_reaches_the_stepped_call() -> None:
    async def slow() -> str:
        await asyncio.sleep(60)
        return "finished"

    async def main() -> str:
        try:
            return await asyncio.wait_for(stepped(slow(), 1.0), 0.2)
        except TimeoutError:
            return "timed out"

    with watched():
        assert asyncio.run(main()) == "timed out"


def test_unwatched_off_the_main_thread() -> None:
    said: list[str] = []

    def run() -> None:
        with watched():
            said.append(asyncio.run(_blocks(0.5, 0.1)()))

    th = threading.Thread(target=run)
    th.start()
    th.join()
    assert said == ["finished"]  # signals reach the main thread only: not watched, as before


def test_an_audit_of_a_scorer_blocking_the_loop_ends_with_timeouts() -> None:
    # Before, each call ran its whole synchronous sleep (and one that never returns held the
    # audit for ever: wait_for cannot cancel code that does not yield).
    t0 = time.monotonic()
    doc = audit_inspect(load_task(f"{TASKS}@blocking_scorer_task"), timeout=0.5)
    cells = doc["stages"]["probes"]["shipped"]["cells"]
    assert cells and all(c["score"] is None and c["message"] == (
        f"{TIMED_OUT}0.5 s: the scorer held the event loop for more than 0.5 s without "
        "yielding") for c in cells), cells
    assert time.monotonic() - t0 < 3 * len(cells)
