"""Text from elsewhere made safe to show: control characters become visible escapes.

Archives, logs and stores hold text written by other programs; an escape sequence in a task name
(`m\\x1b[5m`) would blink, recolour, retitle or rewrite the user's terminal when printed, and a
bidirectional override reorders what a report appears to say. Every place that prints or renders
such text passes it through `printable`: tabs and newlines stay, every other C0 and C1 control
character, DEL and the bidi embedding/override/isolate characters become `\\xNN` / `\\uNNNN`.
"""

from __future__ import annotations

import re
from typing import Any

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """Return `text` with control characters (ESC, CR, C1, bidi overrides) shown as escapes."""
    return _CONTROL.sub(_shown, text)


def one_line(text: str) -> str:
    """Return `text` as one printable line: `printable`, and a line break shown as `\\n`.

    For error lines: a path the user gave may hold a newline (`$'a\\nb'`), and printed as is
    it made the message two lines, the second read as something else."""
    return printable(text.strip("\n")).replace("\n", "\\n")


def short_repr(value: Any, limit: int = 40) -> str:
    """Return a value's repr for a message, cut to `limit` characters ("..." ending one that
    was cut); an integer too long for str() and a value nested too deep are named instead."""
    try:
        text = repr(value)
    except ValueError:  # an integer beyond Python's digit limit for str()
        return "an integer too long to print"
    except RecursionError:
        return f"a {type(value).__name__} nested too deep to show"
    return text if len(text) <= limit else text[:limit - 3] + "..."
