"""Pausing Python's cyclic garbage collector over one episode's burst of allocations.

Running and scoring a large-row episode allocates tens of thousands of short-lived rows,
tuples and sets, none in a reference cycle; the collector, triggered by allocation counts, then
runs full collections that find nothing (about a quarter of a T2 episode's CPU). Reference
counting frees all of it either way; a cycle made meanwhile is collected after the pause.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block, re-enabling it only if it was enabled."""
    if not gc.isenabled():  # already paused (nested, or by the caller): leave it to them
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
