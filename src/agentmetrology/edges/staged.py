"""Writing a set of output files that a reader must see whole: all new ones, or the old ones.

An output made of several files (an audit's four artifacts, one Inspect log per group) read
half-written, or half new and half old, says something no run said: a new `audit.json` beside
the previous audit's `report.html`, or the first logs of an export that a later reader takes
for the whole store. Each file is written beside its name and all are moved into place only
after the last one is written; an error or an interrupt before then removes what was written
and leaves every name as it was.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

K = TypeVar("K")


@contextmanager
def staged_files(paths: Mapping[K, Path],
                 beside: Callable[[Path], Path]) -> Iterator[dict[K, Path]]:
    """Yield, for each of `paths`, the name `beside(path)` to write it under; when the block
    ends without an error, every one is moved onto its path, else every one is removed."""
    staged = {k: beside(p) for k, p in paths.items()}
    try:
        yield staged
        for k, path in paths.items():
            os.replace(staged[k], path)
    except BaseException:
        for tmp in staged.values():
            with contextlib.suppress(OSError):  # never written, or already moved into place
                tmp.unlink()
        raise
