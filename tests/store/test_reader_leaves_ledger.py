"""A reader of a current ledger changes nothing: no write transaction, the same bytes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agentmetrology.store.errors import StoreError
from agentmetrology.store.ledger import Ledger, LedgerError, missing_objects
from agentmetrology.store.schema import SCHEMA
from agentmetrology.store.store import LEDGER_FILE, EvidenceStore


def test_readonly_open_of_a_current_ledger_writes_nothing(tmp_path: Path) -> None:
    EvidenceStore.open(tmp_path / "s").close()
    ledger = tmp_path / "s" / LEDGER_FILE
    before = ledger.read_bytes()
    mtime = ledger.stat().st_mtime_ns
    # A writer holding the write lock would make a reader's BEGIN IMMEDIATE wait (30 s timeout);
    # a current ledger's reader must not need it.
    blocker = sqlite3.connect(ledger, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        r = Ledger(ledger, readonly=True)
        r.conn.execute("PRAGMA busy_timeout=0")
        assert r.sealed
        r.close()
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert ledger.stat().st_mtime_ns == mtime
    assert ledger.read_bytes() == before


def test_readonly_open_of_an_older_ledger_adds_the_missing_tables(tmp_path: Path) -> None:
    EvidenceStore.open(tmp_path / "s").close()
    ledger = tmp_path / "s" / LEDGER_FILE
    with sqlite3.connect(ledger) as c:
        c.execute("DROP TABLE case_uses")
    r = Ledger(ledger, readonly=True)
    try:
        assert missing_objects(r.conn, SCHEMA.split(";")) == []
    finally:
        r.close()


def test_readonly_open_refuses_another_schema_version(tmp_path: Path) -> None:
    EvidenceStore.open(tmp_path / "s").close()
    ledger = tmp_path / "s" / LEDGER_FILE
    with sqlite3.connect(ledger) as c:
        c.execute("UPDATE meta SET value='0' WHERE key='schema'")
    with pytest.raises(LedgerError, match="has schema 0; this version reads schema 1"):
        Ledger(ledger, readonly=True)
    with sqlite3.connect(ledger) as c:
        c.execute("DELETE FROM meta WHERE key='schema'")
    with pytest.raises(LedgerError, match="has no schema version"):
        Ledger(ledger, readonly=True)


def test_a_statement_of_another_form_counts_as_missing(tmp_path: Path) -> None:
    c = sqlite3.connect(tmp_path / "x.db")
    c.execute("CREATE TABLE a (x)")
    stmts = ["CREATE TABLE IF NOT EXISTS a (x)", "CREATE VIEW IF NOT EXISTS v AS SELECT 1"]
    assert missing_objects(c, stmts) == [stmts[1]]
    c.close()


def test_a_reader_of_an_empty_ledger_file_refuses_and_makes_nothing(tmp_path: Path) -> None:
    # Before, `agm campaign status`, `export`, `cases list` and `diagnose` on a zero-byte
    # ledger.sqlite (a truncated store) wrote a new, empty ledger there and reported no campaigns.
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / LEDGER_FILE).write_bytes(b"")
    with pytest.raises(StoreError, match=r"not a readable ledger \(an empty file: 0 bytes\)"):
        EvidenceStore.open_readonly(tmp_path / "s")
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == [LEDGER_FILE]
    assert (tmp_path / "s" / LEDGER_FILE).stat().st_size == 0


def test_a_reader_of_a_foreign_database_refuses_and_adds_no_table(tmp_path: Path) -> None:
    ledger = tmp_path / LEDGER_FILE
    with sqlite3.connect(ledger) as c:
        c.execute("CREATE TABLE foo (x)")
    with pytest.raises(LedgerError, match=r"has no schema version \(an empty or foreign file\)"):
        Ledger(ledger, readonly=True)
    with sqlite3.connect(ledger) as c:
        assert [r[0] for r in c.execute("SELECT name FROM sqlite_master")] == ["foo"]
