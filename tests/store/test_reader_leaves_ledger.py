"""A reader of a current ledger changes nothing: no write transaction, the same bytes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

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
