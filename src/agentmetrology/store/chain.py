"""The ledger's hash chain: every row's content digest, chained and sealed at each append.

Each change to an evidence row (insert, the update of a mutable row such as an attempt that
ends, a row moved to history) appends one entry `(table, ref, row_digest)` to the `chain`
table in the same transaction, with `head = sha256(previous head | table | ref | row_digest)`.
The latest entry of a (table, ref) is what that row must hash to now; a deleted row's entry
has no digest. An edit in place, an inserted or a deleted row is therefore visible to anyone
who recomputes the row digests, and a rewrite that re-seals the chain changes its head, which
reports record. `administrations.not_launched` is a launch note a run rewrites, not evidence:
it is left out of the row digest.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
from typing import Any

import msgspec

GENESIS = "0" * 64
CHAIN_META = "ledger_chain"  # present in ledgers sealed since creation (or by migration)
MIGRATED_META = "ledger_chain_migrated_at"

# table -> (the column that identifies a row, columns left out of its digest)
TABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "campaigns": ("name", ()),
    "runs": ("id", ()),
    "administrations": ("id", ("not_launched",)),
    "attempts": ("id", ()),
    "episodes": ("administration", ()),
    "assessments": ("id", ()),
    "superseded_episodes": ("id", ()),
    "superseded_assessments": ("id", ()),
    "billable_attempts": ("id", ()),
    "grader_calls": ("id", ()),
    "cases": ("id", ()),
    "case_events": ("id", ()),
    "case_uses": ("id", ()),
    "grader_verdicts": ("id", ()),
}

CHAIN_SCHEMA = """
CREATE TABLE IF NOT EXISTS chain (
    seq INTEGER PRIMARY KEY,
    tbl TEXT NOT NULL,
    ref TEXT NOT NULL,
    row_digest TEXT,
    head TEXT NOT NULL
)
"""

# (id(connection), table) -> (connection, columns). The entry keeps its connection and a hit
# must be that very object: once a connection is collected its id can be reused by a new
# connection to another ledger (an older schema, other columns), and a stale entry would digest
# the wrong columns. Bounded, so closed connections do not pile up.
_columns_cache: dict[tuple[int, str], tuple[sqlite3.Connection, tuple[str, ...]]] = {}
_COLUMNS_CACHE_MAX = 64


def columns(c: sqlite3.Connection, table: str) -> tuple[str, ...]:
    """Return the digested columns of a table, in schema order."""
    key = (id(c), table)
    hit = _columns_cache.get(key)
    if hit is not None and hit[0] is c:
        return hit[1]
    skip = TABLES[table][1]
    cols = tuple(r[1] for r in c.execute(f"PRAGMA table_info({table})") if r[1] not in skip)
    if len(_columns_cache) >= _COLUMNS_CACHE_MAX:
        del _columns_cache[next(iter(_columns_cache))]  # the oldest entry
    _columns_cache[key] = (c, cols)
    return cols


# One encoder for every row: `json.dumps` with these options builds a new one per call, which
# was a fifth of the cost of checking a row. The text is the same.
_ROW_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                             allow_nan=True).encode
# The same text, written by msgspec for the values SQLite gives (str, int, float, None):
# msgspec escapes exactly what json.dumps(ensure_ascii=False) escapes, writes ints alike and
# sorts str keys in code-point order (tests/store/test_chain_fast_text.py holds the texts
# equal); a float, which it writes otherwise (1e16 for 1e+16, null for NaN), is handed over
# as the text json writes for it. Several times faster than json: the full check digests
# every row of the ledger.
_ROW_FAST = msgspec.json.Encoder(order="sorted").encode
_NON_FINITE_TEXT = {"nan": b"NaN", "inf": b"Infinity", "-inf": b"-Infinity"}


def row_text(table: str, ref: str, values: dict[str, Any]) -> bytes:
    """Return the UTF-8 text a row's content digest hashes: compact, key-sorted JSON of
    [table, ref, values], NaN and the infinities as json writes them."""
    fast = _fast_row_text(table, ref, values)
    return _ROW_JSON([table, ref, values]).encode("utf-8") if fast is None else fast


def _fast_row_text(table: str, ref: str, values: dict[str, Any]) -> bytes | None:
    """Return `row_text` written by msgspec, None unless every key is a str and every value
    exactly a str, int, float or None (anything else takes json, as always)."""
    if type(table) is not str or type(ref) is not str:
        return None
    kinds = set(map(type, values.values()))  # one pass in C: most rows need no other
    if not kinds <= _PLAIN or not set(map(type, values)) <= _STR:
        return None
    if float in kinds:
        values = {k: _float_text(v) if type(v) is float else v for k, v in values.items()}
    try:
        return _ROW_FAST([table, ref, values])
    except (msgspec.EncodeError, TypeError, ValueError, OverflowError):
        return None  # json decides (a lone surrogate: json's encode raises, as always)


_PLAIN = frozenset({str, int, float, type(None)})
_STR = frozenset({str})


def _float_text(v: float) -> msgspec.Raw:
    """Return a float as json writes it (repr; NaN, Infinity, -Infinity), to be kept as is."""
    text = float.__repr__(v)
    return msgspec.Raw(_NON_FINITE_TEXT.get(text) or text.encode())


def content_digest(table: str, ref: str, values: dict[str, Any]) -> str:
    """Return the sha256 of a row's content (table, identity and every digested column)."""
    return hashlib.sha256(row_text(table, ref, values)).hexdigest()


def next_head(head: str, table: str, ref: str, row_digest: str | None) -> str:
    """Return the chain head after appending one entry."""
    link = f"{head}|{table}|{ref}|{row_digest or '-'}"
    return hashlib.sha256(link.encode("utf-8")).hexdigest()


def row_digest(c: sqlite3.Connection, table: str, ref: object) -> str | None:
    """Return the content digest of a row as stored now, or None if it does not exist."""
    cols = columns(c, table)
    ident = TABLES[table][0]
    row = c.execute(f"SELECT {', '.join(cols)} FROM {table} WHERE {ident}=?", (ref,)).fetchone()
    if row is None:
        return None
    return content_digest(table, str(ref), dict(zip(cols, row, strict=True)))


def head(c: sqlite3.Connection) -> tuple[int, str]:
    """Return (length, head) of the chain; (0, GENESIS) when empty."""
    row = c.execute("SELECT seq, head FROM chain ORDER BY seq DESC LIMIT 1").fetchone()
    return (0, GENESIS) if row is None else (int(row[0]), str(row[1]))


def seal(c: sqlite3.Connection, table: str, refs: Iterable[object]) -> None:
    """Append the current content digest of each row (None if it was deleted) to the chain.

    Call inside the transaction that changed the rows.
    """
    seal_rows(c, [(table, ref) for ref in refs])


def seal_rows(c: sqlite3.Connection, rows: Iterable[tuple[str, object]]) -> None:
    """Append (table, ref) rows of several tables in one go (one read of the head)."""
    _, h = head(c)
    entries = []
    for table, ref in rows:
        d = row_digest(c, table, ref)
        h = next_head(h, table, str(ref), d)
        entries.append((table, str(ref), d, h))
    c.executemany("INSERT INTO chain (tbl, ref, row_digest, head) VALUES (?, ?, ?, ?)", entries)


def seal_all(c: sqlite3.Connection) -> int:
    """Seal every existing row (a migration of an older ledger); return how many entries."""
    n = 0
    for table, (ident, _) in TABLES.items():
        refs = [r[0] for r in c.execute(f"SELECT {ident} FROM {table} ORDER BY rowid")]
        seal(c, table, refs)
        n += len(refs)
    return n


def is_sealed(c: sqlite3.Connection) -> bool:
    """Return True when this ledger keeps the chain (created sealed, or migrated)."""
    try:
        row = c.execute("SELECT value FROM meta WHERE key=?", (CHAIN_META,)).fetchone()
    except sqlite3.OperationalError:
        return False
    return row is not None
