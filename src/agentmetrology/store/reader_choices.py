"""The episode index's filter choices: the distinct values of each key field, by index seeks.

`SELECT DISTINCT level FROM administrations` reads every administration (about 2 s for the
six fields on a store of a million episodes). Each field here is the last column of an index
whose leading columns are walked value by value (`MIN(col) WHERE prefix AND col > last`: one
seek per distinct value), so the cost is the number of distinct prefixes, not of rows. A store
whose writer has not created the index yet (one only ever read since an older version wrote
it) is answered by the plain DISTINCT, with the same values in the same order.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from agentmetrology.store.verify_schema import has_index_as_defined

# field -> (table, index, its columns up to the field); autoindex_1 is the key's UNIQUE index
# (campaign, target, task, seed, condition, level, repeat)
WALKS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "campaign": ("administrations", "sqlite_autoindex_administrations_1", ("campaign",)),
    "target": ("administrations", "administrations_revisions", ("campaign", "target")),
    "task": ("administrations", "sqlite_autoindex_administrations_1",
             ("campaign", "target", "task")),
    "level": ("administrations", "administrations_cells", ("level",)),
    "condition": ("administrations", "administrations_cells", ("level", "condition")),
    "scorer": ("assessments", "assessments_scorers", ("scorer",)),
}
LIMITS = {"scorer": 100}  # as many values as the filter form lists (1,000 for the others)


def distinct_values(c: sqlite3.Connection, field: str) -> list[Any]:
    """Return the distinct non-null values of a key field, sorted (at most the form's limit)."""
    table, index, cols = WALKS[field]
    limit = LIMITS.get(field, 1000)
    if not has_index_as_defined(c, index):
        return [r[0] for r in c.execute(
            f"SELECT DISTINCT {field} FROM {table} ORDER BY {field} LIMIT {limit}")]
    found: set[Any] = set()
    _walk(c, table, index, cols, (), found)
    return sorted(found)[:limit]


def _walk(c: sqlite3.Connection, table: str, index: str, cols: tuple[str, ...],
          fixed: tuple[Any, ...], found: set[Any]) -> None:
    col = cols[len(fixed)]
    where = "".join(f"{k} = ? AND " for k in cols[:len(fixed)])
    last: Any = None
    while True:
        if last is None:
            sql = f"SELECT MIN({col}) FROM {table} INDEXED BY {index} WHERE {where}1"
            args: tuple[Any, ...] = fixed
        else:
            sql = f"SELECT MIN({col}) FROM {table} INDEXED BY {index} WHERE {where}{col} > ?"
            args = (*fixed, last)
        value = c.execute(sql, args).fetchone()[0]
        if value is None:
            return
        if len(fixed) + 1 == len(cols):
            found.add(value)
        else:
            _walk(c, table, index, cols, (*fixed, value), found)
        last = value
