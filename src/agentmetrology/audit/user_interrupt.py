"""A Ctrl-C from the user, told apart from a KeyboardInterrupt that a scorer raises.

An audit calls code it does not trust (an Inspect task's scorers and solver) and records what
that code raises as the call's INVALID cell, a KeyboardInterrupt included: a scorer may raise
one. A Ctrl-C raises the same exception in whatever the main thread runs, often a scorer, and
Inspect's own SIGINT handlers (its control server's, asyncio's) made of it a cancelled run whose
samples read "ended before scoring", or let every scorer call finish and be scored: the audit
then wrote a report of cells the user had stopped. While `noting_interrupts()` is active, a
SIGINT is noted before it raises KeyboardInterrupt, so a guard tells the two apart
(`user_interrupted`), and the block ends in KeyboardInterrupt whatever the code inside made of
the signal (caught, turned into a cancellation or another error): nothing measured after a
Ctrl-C is returned.

Python runs signal handlers in the main thread only, and a SIGINT handler that the program
calling the audit installed (or SIG_IGN, as a shell without job control starts background
jobs) is that program's: the note is taken only in the main thread and only over Python's
default handler; elsewhere nothing is noted and a Ctrl-C acts as it did before.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

__all__ = ["noting_interrupts", "user_interrupted"]


class _Noted:
    """The SIGINTs that arrived while the outermost `noting_interrupts` block ran."""

    count = 0


def _note(signum: int, frame: FrameType | None) -> None:
    _Noted.count += 1  # before the raise: whoever catches the exception can ask
    signal.default_int_handler(signum, frame)


def user_interrupted() -> bool:
    """Return whether the user's Ctrl-C (a real SIGINT) arrived in the active block."""
    return _Noted.count > 0


@contextlib.contextmanager
def noting_interrupts() -> Iterator[None]:
    """Note every SIGINT inside; end in KeyboardInterrupt if one arrived (module docstring)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield  # not ours to note (or an enclosing block notes it): as before
        return
    _Noted.count = 0
    previous = signal.signal(signal.SIGINT, _note)
    try:
        yield
    except KeyboardInterrupt:
        raise
    except BaseException:
        if _Noted.count:  # what the code inside made of the Ctrl-C: the Ctrl-C it was
            raise KeyboardInterrupt from None
        raise
    finally:
        if signal.getsignal(signal.SIGINT) is _note:
            signal.signal(signal.SIGINT, previous)
        noted, _Noted.count = _Noted.count, 0
    if noted:  # the block returned as if nothing happened (the signal caught inside)
        raise KeyboardInterrupt
