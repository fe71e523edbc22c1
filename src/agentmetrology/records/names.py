"""Names derived from user text (campaign names, file and directory names), for every caller."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

Named = TypeVar("Named", str, int)


def slug(text: str) -> str:
    """Return `text` with every character but letters, digits and `-._` replaced by `-`."""
    return "".join(c if c.isalnum() or c in "-._" else "-" for c in text)


def compact_slug(text: str, empty: str) -> str:
    """Return `text` with each run outside [A-Za-z0-9_.-] made one `-`, ends trimmed, or `empty`."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or empty


def repeated(items: Sequence[Named]) -> list[Named]:
    """Return, sorted, every item `items` holds more than once (a name or seed given twice)."""
    return sorted(item for item, n in Counter(items).items() if n > 1)
