"""Run a coroutine that never awaits real I/O without the cost of an event loop."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def drive(coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` to completion synchronously; raise if it awaits real I/O (use asyncio then)."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise RuntimeError(
        "this episode awaited real I/O (an LLM policy or a real clock); run it with "
        "asyncio.run(...) instead of the synchronous driver"
    )
