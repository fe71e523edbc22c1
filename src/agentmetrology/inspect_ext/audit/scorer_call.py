"""One call of an Inspect scorer: a number, or INVALID with why (raise, timeout, non-number).

Every way a scorer can fail to give one number is its own INVALID cell, never the sample's end
and never a zero: a raise (SystemExit, KeyboardInterrupt and a CancelledError of its own
included), a timeout (one that never yields to the event loop too: loop_watch), None, NaN, a
dict of values (each key's value kept as a part), a string that is not a number. The user's
Ctrl-C is none of these: it stops the audit (audit.user_interrupt).
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

from agentmetrology.audit.target import ScoreOutcome
from agentmetrology.audit.user_interrupt import user_interrupted
from agentmetrology.inspect_ext.audit.loop_watch import LoopBlocked, stepped

LETTER_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}  # Inspect's CORRECT/INCORRECT/...
MAX_REASON = 500


def to_number(value: Any) -> tuple[float | None, str]:
    """Return (number, '') for a scalar score value, or (None, why it is not one)."""
    if isinstance(value, bool):
        return float(value), ""
    if isinstance(value, int | float):
        try:
            v = float(value)
        except OverflowError:  # an int beyond the float range (10**400)
            return None, "returned an int too large for a float, not a number"
        return (v, "") if math.isfinite(v) else (None, f"returned {value!r}, not a number")
    if isinstance(value, str):
        if value.strip().upper() in LETTER_VALUES:
            return LETTER_VALUES[value.strip().upper()], ""
        try:
            v = float(value)
        except ValueError:
            return None, f"returned the string {value[:60]!r}, not a number"
        return (v, "") if math.isfinite(v) else (None, f"returned {value!r}, not a number")
    if isinstance(value, dict):
        return None, f"returned a dict of values ({', '.join(map(str, list(value)[:6]))}), " \
                     "not one number"
    return None, f"returned {type(value).__name__} {str(value)[:60]!r}, not a number"


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return text[:MAX_REASON]


Parts = dict[str, ScoreOutcome] | None


def _stop_if_interrupted() -> None:
    """Unwind the run as a cancellation once the user pressed Ctrl-C.

    A cancellation, not the KeyboardInterrupt: one leaving a task leaves the event loop too, and
    again from each task awaiting that one while the loop is being shut down, which left the
    loop closed on tasks never finished and a worker thread the process waited on for ever.
    The run's `noting_interrupts` block ends in the KeyboardInterrupt itself.
    """
    if user_interrupted():
        raise asyncio.CancelledError("interrupted by the user (Ctrl-C)")


async def _guarded(call: Any, *args: Any, limit: float) -> tuple[Any, BaseException | None]:
    """Await `call(*args)` (a scorer, the task's solver), each of its steps held to `limit`
    seconds (loop_watch); return (its result, None) or (None, what it raised).

    Caught inside the task `wait_for` runs it in: a SystemExit or KeyboardInterrupt that leaves
    a task is re-raised out of the event loop itself (asyncio), which hung the whole audit; a
    cancellation from outside (the timeout, the run's own limit) still goes through. So does
    the user's Ctrl-C (audit.user_interrupt), whatever the call made of it: it is not the
    call's verdict, and no call starts after it.
    """
    _stop_if_interrupted()
    try:
        done: tuple[Any, BaseException | None] = (await stepped(call(*args), limit), None)
    except asyncio.CancelledError as exc:
        running = asyncio.current_task()
        if running is not None and running.cancelling():
            raise  # cancelled from outside: not a verdict
        done = (None, exc)
    except BaseException as exc:  # whatever it raised is its own failure
        done = (None, exc)
    _stop_if_interrupted()  # raised in it, swallowed by it or turned into another error
    return done


# How a call that gave no verdict at all begins its message (determinism leaves such calls out)
TIMED_OUT = "timeout after "
RAISED = "scorer raised "


async def call_scorer(scorer: Any, state: Any, timeout: float) -> tuple[ScoreOutcome, Parts]:
    """Call one scorer on a state: a number, or INVALID with why (raise, timeout, non-number).

    A dict value is INVALID as one number; its keys' values come back as parts, each a number
    or INVALID on its own. Anything the scorer raises (SystemExit, KeyboardInterrupt and a
    CancelledError of its own included) is its INVALID cell alone, never the sample's end.
    """
    try:
        # each step held to the timeout too: one that never yields is stopped (loop_watch)
        score, raised = await asyncio.wait_for(
            _guarded(scorer, state, state.target, limit=timeout), timeout)
    except TimeoutError:
        return ScoreOutcome(None, "INVALID", f"{TIMED_OUT}{timeout:g} s"), None
    if isinstance(raised, LoopBlocked):  # a timeout wait_for could not see
        return ScoreOutcome(None, "INVALID", f"{TIMED_OUT}{timeout:g} s: the scorer {raised}"), \
            None
    if raised is not None:  # a scorer crash is a missing measurement, not a zero
        return ScoreOutcome(None, "INVALID", f"{RAISED}{_reason(raised)}"), None
    if score is None:
        return ScoreOutcome(None, "INVALID", "scorer returned None"), None
    raw = getattr(score, "value", score)
    value, why = to_number(raw)
    if value is None:
        parts = None
        if isinstance(raw, dict):
            parts = {}
            for k, v in raw.items():
                num, bad = to_number(v)
                parts[str(k)] = ScoreOutcome(num) if num is not None else ScoreOutcome(
                    None, "INVALID", f"scorer key {k!r} {bad}")
        return ScoreOutcome(None, "INVALID", f"scorer {why}"), parts
    return ScoreOutcome(value, "ok",
                        str(getattr(score, "explanation", "") or "")[:MAX_REASON]), None
