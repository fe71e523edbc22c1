"""The store check below the rows: the ledger's schema against the code's, and SQLite's pages.

A row check reads whatever answers to a table's name, so it must first know that the name is
the table the code created: a view in place of a chained table (serving forged rows), a trigger
that rewrites rows as they are read back, an extra table or index, a changed definition or
schema version are each a `schema_changed` problem. SQLite's own page check (`integrity_check`
in the full check, `quick_check` in the hash-only one) then finds corruption below the rows,
such as an index whose pages belong to another index, which changes what a query through that
index answers while every row still hashes to its chain entry.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from functools import lru_cache

from agentmetrology.store.chain import CHAIN_META, CHAIN_SCHEMA, MIGRATED_META
from agentmetrology.store.head_log import HEAD_LOG_META
from agentmetrology.store.schema import SCHEMA, SCHEMA_VERSION, WRITER_INDEXES

# Tables every sealed ledger has had since the chain; the others (and their indexes) were added
# later and are created on a writer's first open, so an older sealed store may lack them.
CORE_TABLES = frozenset({"meta", "chain", "campaigns", "runs", "administrations", "attempts",
                         "episodes", "assessments"})
META_KEYS = frozenset({"schema", CHAIN_META, MIGRATED_META, HEAD_LOG_META})
# Read-side indexes a writer adds (see store.schema): a store only ever read may lack them.
# Named from the same text the writer runs, so an index added there is optional here too (a
# list kept by hand once missed one, and every store read before its writer had run it was
# reported unqualified).
OPTIONAL = frozenset(re.findall(r"CREATE INDEX IF NOT EXISTS (\w+)", WRITER_INDEXES))
MAX_PAGE_MESSAGES = 20
_OBJECT = re.compile(r"\b(index|table) ([A-Za-z_][\w]*)")


def _norm(sql: str | None) -> str | None:
    return None if sql is None else " ".join(sql.split())


@lru_cache(maxsize=1)
def expected_objects() -> dict[str, tuple[str, str, str | None]]:
    """Return name -> (type, table, definition) of every object the ledger's code creates."""
    with closing(sqlite3.connect(":memory:")) as conn:
        for stmt in [*SCHEMA.split(";"), CHAIN_SCHEMA, *WRITER_INDEXES.split(";")]:
            if stmt.strip():
                conn.execute(stmt)
        return {name: (kind, table, _norm(sql)) for kind, name, table, sql in conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master")}


def has_index_as_defined(c: sqlite3.Connection, name: str) -> bool:
    """Return True when the ledger has the index `name` as the ledger's code defines it.

    A query that names an index (INDEXED BY) or is chosen for one asks this first: a store only
    read may lack a writer's read-side index, and an edited store may define one otherwise
    (SQLite could then find no way to answer through it); either is answered without it.
    """
    row = c.execute("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?",
                    (name,)).fetchone()
    return row is not None and _norm(row[0]) == expected_objects()[name][2]


def schema_problems(c: sqlite3.Connection) -> Iterator[tuple[str, str]]:
    """Yield (where, detail) for every way the ledger's schema differs from the code's."""
    expected = expected_objects()
    found: dict[str, str] = {}
    for kind, name, table, sql in c.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"):
        if name.startswith("sqlite_stat"):
            continue  # SQLite's planner statistics (ANALYZE): they change no answer
        want = expected.get(name)
        if want is None:
            yield f"{kind} {name}", "the ledger's code creates no such object"
        elif (kind, table, _norm(sql)) != want:
            yield f"{kind} {name}", (f"differs from the {want[0]} the ledger's code creates"
                                     + (" (a view serves whatever rows it is written to)"
                                        if kind == "view" else ""))
        else:
            found[name] = kind
    for name, (kind, table, _) in expected.items():
        needed = table in CORE_TABLES or found.get(table) == "table"
        if name not in found and needed and name not in OPTIONAL:
            yield f"{kind} {name}", "missing (the ledger's code creates it)"
    yield from _meta_problems(c)


def _meta_problems(c: sqlite3.Connection) -> Iterator[tuple[str, str]]:
    """Yield problems of the `meta` rows: the schema version and keys the code never writes."""
    for key, value in c.execute("SELECT key, value FROM meta ORDER BY key"):
        if key not in META_KEYS:
            yield f"meta {key}", "the ledger's code writes no such key"
        elif key == "schema" and value != SCHEMA_VERSION:
            yield "meta schema", f"schema {value!r}, this version writes {SCHEMA_VERSION!r}"


def page_problems(c: sqlite3.Connection, quick: bool) -> list[tuple[str, str]]:
    """Return (where, detail) for each finding of SQLite's page check (none: the pages hold)."""
    pragma = "quick_check" if quick else "integrity_check"
    try:
        messages = [str(r[0]) for r in c.execute(f"PRAGMA {pragma}({MAX_PAGE_MESSAGES})")]
    except sqlite3.DatabaseError as exc:
        return [("ledger.sqlite", f"SQLite cannot read its pages ({exc})")]
    if messages == ["ok"]:
        return []
    out = []
    for message in messages:
        m = _OBJECT.search(message)
        where = f"{m.group(1)} {m.group(2)}" if m else "ledger.sqlite"
        out.append((where, f"SQLite's {pragma}: {' '.join(message.split())}"))
    return out
