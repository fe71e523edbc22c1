"""JSON objects that name a key more than once, found while parsing, for every JSON reader.

`json.loads` keeps the last value of a repeated key and drops the others silently, while other
readers keep the first: two readers of one file then read different numbers. `KeyMarks`, given
as `object_pairs_hook`, marks each such object (a `RepeatedKeys`, still a dict) and counts them,
so a reader that finds the count at 0 knows the parsed value holds no mark without walking it.
The hook costs a few per cent of a parse (the pairs list the parser builds for it); see
docs/archive.md for the measured numbers.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.records.names import repeated


class RepeatedKeys(dict[str, Any]):
    """A parsed JSON object that named a key more than once (`twice`: those keys, sorted)."""

    twice: list[str]


class KeyMarks:
    """An `object_pairs_hook` that marks every object naming a key twice and counts them."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        """Return the parsed object as a dict, a `RepeatedKeys` when it named a key twice."""
        obj = dict(pairs)
        if len(obj) == len(pairs):
            return obj
        self.count += 1
        marked = RepeatedKeys(obj)
        marked.twice = repeated([key for key, _ in pairs])
        return marked


class SharedKeyMarks(KeyMarks):
    """`KeyMarks` for many documents parsed one by one (JSON Lines): every object's keys are
    one string per name across them all. The parser shares a name's string only within one
    document, so a million rows held a million copies of each column name: about 40% of a
    results table's memory, for about 15% more parse time."""

    __slots__ = ("names",)

    def __init__(self) -> None:
        super().__init__()
        self.names: dict[str, str] = {}

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        """Return the parsed object as `KeyMarks` does, its keys the shared strings."""
        names = self.names
        return super().__call__([(names.setdefault(k, k), v) for k, v in pairs])


def first_repeated(value: Any) -> list[str] | None:
    """Return the repeated keys of the first marked object found in `value`, else None."""
    stack = [value] if isinstance(value, dict | list) else []
    while stack:
        node = stack.pop()
        if isinstance(node, RepeatedKeys):
            return node.twice
        items = node.values() if isinstance(node, dict) else node
        stack.extend(item for item in items if isinstance(item, dict | list))
    return None


def names_twice(twice: list[str]) -> str:
    """Return the words saying that a JSON object names the keys `twice` more than once."""
    return f"a JSON object names {', '.join(map(repr, twice))} more than once"
