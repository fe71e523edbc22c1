"""Pausing Python's cyclic garbage collector over one episode's burst of allocations.

Running and scoring a large-row episode allocates tens of thousands of short-lived rows,
tuples and sets, none in a reference cycle; the collector, triggered by allocation counts, then
runs full collections that find nothing (about a quarter of a T2 episode's CPU). Reference
counting frees all of it either way; a cycle made meanwhile is collected after the pause.
"""

from __future__ import annotations

import gc
from types import TracebackType


class gc_paused:  # lower case: used as `with gc_paused():`, like contextlib managers
    """Disable the cyclic collector for the block, re-enabling it only if it was enabled.

    A class, not a @contextmanager generator: every episode enters it twice (run, score), and
    the generator protocol costs several times the two gc calls it wraps.
    """

    __slots__ = ("_resume",)

    def __enter__(self) -> None:
        # Already paused (nested, or by the caller): leave re-enabling to them.
        self._resume = gc.isenabled()
        if self._resume:
            gc.disable()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._resume:
            gc.enable()
