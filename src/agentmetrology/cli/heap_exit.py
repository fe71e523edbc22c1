"""Ending the `agm` process without freeing a large heap a command has finished with.

An audit of a large store builds a heap that lives until the command ends (every episode
imported): freeing it object by object when the command returns, then again as the
interpreter tears its modules down, took about 0.05 s of a 10,000-episode audit's 2.2 s
and 0.25 s of a 100,000-episode one's 23 s (timed by hand), and frees nothing the operating
system would not take back at once. A command that has written everything it writes may
`keep` such a heap: the console script (`cli.main.entry`, never `main()` itself, which
tests call in-process) then ends the process with `os._exit` after flushing stdout and
stderr and running the atexit handlers, which is what a normal exit does before the
teardown. It does so only when the main thread is the only one left (a thread still running
is joined by a normal exit, never cut off); otherwise, and whenever nothing was kept, the
exit is the normal one.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import Any

_armed = False  # set by the console script: only then is a heap kept past its command
_kept: list[Any] = []


def arm() -> None:
    """Let commands keep their heap to the end (the console script calls this, once)."""
    global _armed
    _armed = True


def keep(*objects: Any) -> None:
    """Keep `objects` alive to the end of the process, which then ends without freeing them
    (armed only; in-process callers such as tests keep nothing)."""
    if _armed:
        _kept.extend(objects)


def end(code: int) -> None:
    """End the process now with `code` when a heap was kept and nothing else runs; return
    (for the normal exit) otherwise."""
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if not _kept or threading.active_count() != 1 or run_exit_handlers is None:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed or broken stream: the normal exit reports it
        return
    run_exit_handlers()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # the handlers ran: nothing is left to report it to
    os._exit(code)


def exit_code(value: int | None) -> int:
    """Return the process exit code `sys.exit(value)` gives for None or an int."""
    return 0 if value is None else value
