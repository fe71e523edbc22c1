"""A stdout that ends the program quietly when its reader goes away (`agm ... | head -1`)."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, TextIO


class QuietPipe:
    """Wraps stdout: a broken pipe exits 0 at once, with no traceback and no more work."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def _gone(self) -> None:
        # The reader has what it wanted; later writes (and the interpreter's final flush)
        # go to /dev/null so nothing complains on the way out.
        devnull = os.open(os.devnull, os.O_WRONLY)
        with contextlib.suppress(OSError, ValueError):
            os.dup2(devnull, self._inner.fileno())
        raise SystemExit(0)

    def write(self, text: str) -> int:
        """Write, or exit 0 quietly if the reader is gone."""
        try:
            return self._inner.write(text)
        except BrokenPipeError:
            self._gone()
            return 0

    def flush(self) -> None:
        """Flush, or exit 0 quietly if the reader is gone."""
        try:
            self._inner.flush()
        except BrokenPipeError:
            self._gone()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def guard_stdout() -> None:
    """Install the quiet-pipe wrapper on sys.stdout (once)."""
    if not isinstance(sys.stdout, QuietPipe):
        sys.stdout = QuietPipe(sys.stdout)
