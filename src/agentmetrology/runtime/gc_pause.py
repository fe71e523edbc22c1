"""Pausing Python's cyclic garbage collector over a burst of allocations, and freezing a heap.

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


class gc_frozen:  # lower case: used as `with gc_frozen() as heap:`
    """Let the block freeze the heap (`heap.freeze()`: the collector stops scanning what lives
    until the end); thaw it on exit, however the block ends.

    gc.unfreeze thaws every frozen object, a caller's too, so the heap is frozen only when
    nothing else is: a caller's frozen heap stays frozen.
    """

    __slots__ = ("_allowed", "_frozen")

    def __enter__(self) -> gc_frozen:
        self._allowed, self._frozen = gc.get_freeze_count() == 0, False
        return self

    def freeze(self) -> None:
        """Freeze every object tracked now (nothing when a caller had frozen some already)."""
        if self._allowed:
            gc.freeze()
            self._frozen = True

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._frozen:
            gc.unfreeze()
