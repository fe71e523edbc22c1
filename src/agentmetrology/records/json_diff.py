"""Where two plain JSON documents differ: the paths and both values, for a recomputed report.

`agm evidence qualify --recompute` derives a report again from its store and compares it with
the report as found; a difference is named by its path (`groups.a|b.gap`, `cells[3].verdict`)
with the report's value and the recomputed one, shortened to a line.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.records.canonical import canonical_json

SHOWN = 5  # differing values named, at most


def differences(old: Any, new: Any, limit: int = SHOWN) -> list[str]:
    """Return up to `limit` paths where plain JSON values `old` (the report's) and `new` (the
    recomputed one) differ, each with both values."""
    out: list[str] = []
    _walk(old, new, "", out, limit)
    return out


# A key one side lacks: never equal to a null the other side holds (a field deleted from a
# report read as its null, and the report as equal to its recomputation).
_ABSENT = object()


def _walk(old: Any, new: Any, path: str, out: list[str], limit: int) -> None:
    if len(out) >= limit:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            _walk(old.get(key, _ABSENT), new.get(key, _ABSENT),
                  f"{path}.{key}" if path else str(key), out, limit)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            _walk(a, b, f"{path}[{i}]", out, limit)
    elif (old is _ABSENT or new is _ABSENT
          or canonical_json(old) != canonical_json(new)):
        out.append(f"{path}: {shown(old)} in the report, {shown(new)} recomputed")


def shown(value: Any) -> str:
    """Return a value as a difference names it: its canonical JSON, cut to 60 characters."""
    if value is _ABSENT:
        return "absent"
    text = canonical_json(value).decode("utf-8")
    return text if len(text) <= 60 else text[:57] + "..."
