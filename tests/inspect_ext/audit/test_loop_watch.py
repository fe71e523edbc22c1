"""A scorer that blocks the event loop is stopped at its limit (inspect_ext.audit.loop_watch)."""

import asyncio
import signal
import threading
import time
from pathlib import Path
from typing import Any

from agentmetrology.inspect_ext.audit.load import load_task
from agentmetrology.inspect_ext.audit.loop_watch import LoopBlocked, in_flight, watched
from agentmetrology.inspect_ext.audit.scorer_call import TIMED_OUT
from agentmetrology.inspect_ext.audit.target import audit_inspect

TASKS = Path(__file__).resolve().parent / "tasks" / "toy_tasks.py"


def _blocks(seconds: float, limit: float) -> Any:
    async def main() -> str:
        try:
            with in_flight(limit):
                time.sleep(seconds)  # never yields
        except LoopBlocked as exc:
            return str(exc)
        return "finished"
    return main


def test_code_holding_the_loop_past_its_limit_is_interrupted() -> None:
    t0 = time.monotonic()
    with watched():
        said = asyncio.run(_blocks(30, 0.3)())
    assert time.monotonic() - t0 < 5
    assert said == "held the event loop for more than 0.3 s without yielding"
    assert signal.getsignal(signal.SIGUSR2) is signal.SIG_DFL  # restored


def test_code_that_yields_or_ends_in_time_is_left_alone() -> None:
    async def yields() -> str:
        with in_flight(0.3):
            for _ in range(8):  # 0.8 s in all, never 0.3 s at once
                time.sleep(0.1)
                await asyncio.sleep(0)
        return "finished"

    with watched():
        assert asyncio.run(yields()) == "finished"
        assert asyncio.run(_blocks(0.1, 0.3)()) == "finished"


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
