"""The ledger hash chain's formulas, recomputed from their definition (store/chain.py docstring,
docs/evidence.md): row digest = sha256 of compact sorted JSON [table, ref, values]; head =
sha256("previous head|table|ref|row digest"), "-" for a deleted row, from 64 zeros."""

from __future__ import annotations

import hashlib
import json
import sqlite3

from agentmetrology.store import chain


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _db() -> sqlite3.Connection:
    c = sqlite3.connect(":memory:")
    c.execute(chain.CHAIN_SCHEMA)
    c.execute("CREATE TABLE runs (id TEXT PRIMARY KEY, outcome TEXT, n REAL)")
    c.execute("CREATE TABLE administrations (id TEXT PRIMARY KEY, seed INT, not_launched TEXT)")
    c.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    return c


def test_content_digest_is_sha256_of_compact_sorted_json() -> None:
    values = {"z": 1, "a": "é", "n": float("nan")}
    text = '["runs","r1",{"a":"é","n":NaN,"z":1}]'
    assert chain.content_digest("runs", "r1", values) == _sha(text)
    assert chain.content_digest("runs", "r1", values) != chain.content_digest("runs", "r2",
                                                                               values)


def test_next_head_links_previous_head_table_ref_and_digest() -> None:
    assert chain.GENESIS == "0" * 64
    assert chain.next_head(chain.GENESIS, "runs", "r1", "ab") == _sha("0" * 64 + "|runs|r1|ab")
    assert chain.next_head("h", "runs", "r1", None) == _sha("h|runs|r1|-")


def test_seal_appends_one_entry_per_row_with_the_running_head() -> None:
    c = _db()
    assert chain.head(c) == (0, chain.GENESIS)
    c.execute("INSERT INTO runs VALUES ('r1', 'ok', 1.5)")
    c.execute("INSERT INTO administrations VALUES ('a1', 7, 'note')")
    chain.seal_rows(c, [("runs", "r1"), ("administrations", "a1"), ("runs", "gone")])
    d_run = _sha(json.dumps(["runs", "r1", {"id": "r1", "outcome": "ok", "n": 1.5}],
                            sort_keys=True, separators=(",", ":")))
    # not_launched is a launch note a run rewrites: left out of the digest
    d_adm = _sha(json.dumps(["administrations", "a1", {"id": "a1", "seed": 7}],
                            sort_keys=True, separators=(",", ":")))
    h1 = _sha(f"{'0' * 64}|runs|r1|{d_run}")
    h2 = _sha(f"{h1}|administrations|a1|{d_adm}")
    h3 = _sha(f"{h2}|runs|gone|-")
    rows = c.execute("SELECT seq, tbl, ref, row_digest, head FROM chain ORDER BY seq").fetchall()
    assert rows == [(1, "runs", "r1", d_run, h1), (2, "administrations", "a1", d_adm, h2),
                    (3, "runs", "gone", None, h3)]
    assert chain.head(c) == (3, h3)
    assert chain.row_digest(c, "runs", "r1") == d_run
    assert chain.row_digest(c, "runs", "gone") is None
    c.execute("UPDATE administrations SET not_launched='other' WHERE id='a1'")
    assert chain.row_digest(c, "administrations", "a1") == d_adm


def test_seal_all_seals_every_table_in_rowid_order_and_counts() -> None:
    c = _db()
    for table, _ in chain.TABLES.items():
        if table not in ("runs", "administrations"):
            ident = chain.TABLES[table][0]
            c.execute(f"CREATE TABLE {table} ({ident} TEXT PRIMARY KEY, v INT)")
    c.execute("INSERT INTO runs VALUES ('r2', 'a', 0), ('r1', 'b', 0)")
    c.execute("INSERT INTO attempts VALUES ('t1', 3)")
    assert chain.seal_all(c) == 3
    refs = [r[0] for r in c.execute("SELECT tbl || ':' || ref FROM chain ORDER BY seq")]
    assert refs == ["runs:r2", "runs:r1", "attempts:t1"]


def test_is_sealed_reads_the_meta_marker() -> None:
    c = sqlite3.connect(":memory:")
    assert chain.is_sealed(c) is False  # no meta table at all: an older ledger
    c = _db()
    assert chain.is_sealed(c) is False
    c.execute("INSERT INTO meta VALUES (?, '1')", (chain.CHAIN_META,))
    assert chain.is_sealed(c) is True


def test_columns_follow_the_connection_even_when_an_id_is_reused() -> None:
    # Ledgers with different schemas opened one after another in one process: CPython often
    # gives a new connection the id of one already collected (more connections here than the
    # cache holds, so entries are evicted and ids do get reused).
    for width in range(2, 202):
        c = sqlite3.connect(":memory:")
        names = [f"c{i}" for i in range(width % 50 + 1)]
        c.execute(f"CREATE TABLE runs (id TEXT PRIMARY KEY, {', '.join(names)})")
        assert chain.columns(c, "runs") == ("id", *names)
        c.close()
        del c
