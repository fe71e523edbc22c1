"""Input limits shared by the importers: JSON nesting depth, numbers and declared sizes.

Archives come from elsewhere, so every importer parses JSON through `parse_json`, which turns a
nesting too deep for Python's parser (RecursionError) or for the recursive code after it into a
`ValueError` with a plain message, and reads numbers through `count` (here) and
`records.numbers.finite_float`, which treat non-finite floats and integers too large for a
float as unreadable rather than raising. Given `KeyMarks`, `parse_json` marks every object that
names a key twice (edges.json_keys), and `repeated_key` says which record holds one. A UTF-8
byte order mark that starts a file is left out (`file_head`, `without_bom`): RFC 8259 lets a
parser ignore it, and Windows tools write it.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, NamedTuple

from agentmetrology.archive.model import SUCCESS_TOLERANCE
from agentmetrology.edges.json_keys import KeyMarks, RepeatedKeys, first_repeated, names_twice

MAX_DEPTH = 200  # deepest JSON nesting accepted; real archives stay well under 30 levels
MAX_COUNT = 2**53  # largest token count / trial number read as exact (floats are exact below)
MAX_PLANNED_ABSENT = 100_000  # planned-but-absent placeholders one log may ask for
JSON_MEMORY_FACTOR = 8  # parsing one capped member may use this many times the cap
# Default cap on the bytes one member of a zipped log (an Inspect `.eval`) may inflate to.
MAX_MEMBER_BYTES = 64 * 1024 * 1024
# A stored score is read as a success probability (success is |score - 1| <= 1e-6): a number
# outside [0, 1] is not a score of this kind, and averaging it would give a "rate" above 1.
SCORE_RANGE = (0.0, 1.0)
# One span's cost in currency units: far above any real model call, and small enough that sums
# over 2^53 spans stay finite (ratios of infinities are NaN, which no report can hold).
MAX_COST = 1e9
UTF8_BOM = b"\xef\xbb\xbf"
# `\ud800`-style escapes: only text holding one can decode to a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class TooDeepError(ValueError):
    """JSON nested deeper than MAX_DEPTH (or than Python's parser can follow)."""


class TooCostlyError(ValueError):
    """JSON whose parse would need more memory than allowed."""


class LoneSurrogateError(ValueError):
    """JSON text with a `\\ud800`-style escape that is not half of a pair: not Unicode text."""


def without_bom(raw: bytes) -> bytes:
    """Return a file's bytes without the UTF-8 byte order mark that may start them."""
    return raw.removeprefix(UTF8_BOM)


def file_head(path: Path, size: int) -> bytes:
    """Return a file's first `size` bytes, a UTF-8 byte order mark and leading blanks left out
    (what format detection looks at)."""
    with path.open("rb") as fh:
        return without_bom(fh.read(size)).lstrip()


def json_depth_ok(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Return True when `value` nests no deeper than `limit` containers (iterative, linear)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        obj, depth = stack.pop()
        if depth > limit:
            return False
        items = obj.values() if isinstance(obj, dict) else obj
        stack.extend((v, depth + 1) for v in items if isinstance(v, dict | list))
    return True


def parse_cost(raw: bytes | bytearray | str) -> int:
    """Return a rough upper estimate of the memory json.loads needs for `raw`, in bytes.

    Every container costs at least ~60 bytes and every comma-separated item a pointer plus a
    boxed value, so `[[],[],...]` needs ~20 times its text: counting brackets and commas (a
    C-speed scan) bounds that before parsing. Prose commas inside strings over-count a little.
    """
    if isinstance(raw, str):
        containers, items = raw.count("[") + raw.count("{"), raw.count(",")
    else:
        containers, items = raw.count(b"[") + raw.count(b"{"), raw.count(b",")
    return 2 * len(raw) + 64 * containers + 24 * items


def parse_json(raw: bytes | bytearray | str, max_memory: int | None = None,
               marks: KeyMarks | None = None) -> Any:
    """Return parsed JSON; raise ValueError for bad JSON and TooDeepError for deep nesting.

    Bare NaN / Infinity tokens are accepted as Python's parser does (Inspect writes them); the
    readers decide what a non-finite number means. With `max_memory`, text whose parse would
    need more (see `parse_cost`) is refused before parsing. With `marks`, each object naming a
    key twice is marked (a RepeatedKeys) and counted in `marks`.
    """
    if max_memory is not None and (cost := parse_cost(raw)) > max_memory:
        raise TooCostlyError(f"parsing would need about {cost >> 20} MiB, more than the "
                         f"{max_memory >> 20} MiB allowed")
    text = raw if isinstance(raw, str) else raw.decode("utf-8")
    try:
        value = json.loads(text, object_pairs_hook=marks)  # None: the parser's fast path
    except RecursionError as exc:
        raise TooDeepError("JSON nested too deeply") from exc
    deep_enough = text.count("[") + text.count("{") > MAX_DEPTH  # else no walk is needed
    if isinstance(value, dict | list) and deep_enough and not json_depth_ok(value):
        raise TooDeepError(f"JSON nested too deeply (more than {MAX_DEPTH} levels)")
    if _SURROGATE_ESCAPE.search(text) and (bad := lone_surrogate(value)) is not None:
        # It cannot be encoded as UTF-8, so no digest, report or export could hold it.
        raise LoneSurrogateError(f"JSON holds a lone surrogate ({bad!r}), which is not text")
    return value


class JsonDoc(NamedTuple):
    """A parsed JSON file and whether any object in it named a key twice (then marked)."""

    value: Any
    repeated: bool


def parse_doc(text: str) -> JsonDoc:
    """Return the parsed JSON of a whole file with its objects naming a key twice marked."""
    marks = KeyMarks()
    value = parse_json(text, marks=marks)
    return JsonDoc(value, marks.count > 0)


def unpack(data: Any) -> tuple[Any, bool]:
    """Return (parsed value, whether it may hold a marked object) of what a loader was given: a
    JsonDoc knows; a bare value may (its records are then searched, never assumed clean)."""
    if isinstance(data, JsonDoc):
        return data.value, data.repeated
    return data, True


def twice_text(twice: list[str]) -> str:
    """Return the problem text for an object naming the keys `twice` more than once."""
    return f"{names_twice(twice)} (JSON readers differ on which value counts)"


def repeated_key(record: Any, may_hold: bool, identity: tuple[str, ...]) -> str | None:
    """Return why `record` cannot be read when an object in it names a key twice, else None.

    Raise Malformed when `record`'s own `identity` fields (its task, its trial) are among them:
    then no episode can be named for it.
    """
    if not may_hold or (twice := first_repeated(record)) is None:
        return None
    own = record.twice if isinstance(record, RepeatedKeys) else []
    if set(own) & set(identity):
        raise Malformed(twice_text(own))
    return twice_text(twice)


def lone_surrogate(value: Any) -> str | None:
    """Return the first string (key or value) in `value` holding a lone surrogate, else None."""
    stack = [value]
    while stack:
        obj = stack.pop()
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, list):
            stack.extend(obj)
        elif isinstance(obj, str) and any("\ud800" <= ch <= "\udfff" for ch in obj):
            return obj[:40]
    return None


def score_outside(score: float, what: str) -> str | None:
    """Return why `score` is not a score (outside SCORE_RANGE, with the success tolerance at
    either end), naming it as `what` and the value in full; else None."""
    low, high = SCORE_RANGE
    # Success is |score - 1| <= 1e-6 (tau2's is_successful, tau-bench's metrics): a reward of
    # 1.0000001 is a pass there, so it is a score here too, not an ungraded episode.
    if low - SUCCESS_TOLERANCE <= score <= high + SUCCESS_TOLERANCE:
        return None
    # repr, not :g (which showed 1.000002 as "1", a value inside the range it named)
    shown = repr(float(score)).removesuffix(".0")
    return f"{what} {shown} is outside the declared range [{low:g}, {high:g}]"


def cost(value: Any) -> float | None:
    """Return a span cost: None when absent, a float in [0, MAX_COST], else raise Malformed."""
    if value is None:
        return None
    num = None if isinstance(value, bool) or not isinstance(value, int | float) else value
    if num is None or not (isinstance(num, int) or math.isfinite(num)) or not 0 <= num <= MAX_COST:
        raise Malformed(f"cost must be a number from 0 to {MAX_COST:g} or null")
    return float(num)


def count(value: Any) -> int | None:
    """Return a non-negative integer count (int or integral float) up to MAX_COUNT, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= MAX_COUNT else None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value) if 0 <= value <= MAX_COUNT else None
    return None


class Malformed(ValueError):
    """A record of the wrong shape; the message names the field and what it held."""


def kind_name(value: Any) -> str:
    """Return a JSON type name with its article for messages ('an object', 'a list', ...)."""
    if value is None:
        return "null"
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number"}
    return names.get(type(value), type(value).__name__)


def obj(value: Any, what: str) -> dict[str, Any]:
    """Return value when it is an object, {} when null; raise Malformed otherwise."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Malformed(f"{what} is {kind_name(value)}, not an object")
    return value


def seq(value: Any, what: str) -> list[Any]:
    """Return value when it is a list, [] when null; raise Malformed otherwise."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise Malformed(f"{what} is {kind_name(value)}, not a list")
    return value


def ident(value: Any) -> str | None:
    """Return a string or integer identifier as text, else None."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None
