"""The full check reads each table's sealed digests from the chain in a pass of its own
(store.verify `sealed`, bounded memory): it sees exactly the entries the chain walk sees, so
what it finds is what it found holding them all (an entry the walk does not count changes
nothing, as before; an edited digest is still found)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

import store.tamper_fixtures as tf
from agentmetrology.archive.evidence_check import qualify_store


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, bytes]]]:
    root = tf.record_store(tmp_path_factory.mktemp("sealed"))
    yield root, tf.snapshot(root)


def _write(root: Path, sql: str, *params: object) -> None:
    with closing(sqlite3.connect(root / "ledger.sqlite")) as c, c:
        c.execute(sql, params)


def test_an_entry_the_walk_does_not_count_changes_nothing(
        recorded: tuple[Path, dict[str, bytes]]) -> None:
    root, files = recorded
    intact = qualify_store(root, "full")
    try:
        _write(root, "INSERT INTO chain (seq, tbl, ref, row_digest, head) "
                     "VALUES (-1, 'runs', 'ghost', 'ab', 'cd')")
        assert qualify_store(root, "full") == intact
    finally:
        tf.restore(root, files)


def test_an_edited_digest_is_found_in_its_table_s_pass(
        recorded: tuple[Path, dict[str, bytes]]) -> None:
    root, files = recorded
    try:
        _write(root, "UPDATE chain SET row_digest='ab' WHERE seq = (SELECT MAX(seq) FROM chain "
                     "WHERE tbl='episodes')")
        q = qualify_store(root, "full")
        kinds = {p["kind"] for p in q["problems"]}
        assert not q["qualified"] and {"chain_broken", "row_changed"} <= kinds
    finally:
        tf.restore(root, files)
