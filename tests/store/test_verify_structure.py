"""What the store check sees below the rows: the schema itself, SQLite's pages, the blob files.

Each test edits a fresh copy of one recorded store (store.verify_fixtures): a view put in place
of a chained table, an extra trigger or index, a changed schema version, swapped index pages,
an episode blob that is not JSON (sealed as such) or a symbolic link.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

import store.verify_fixtures as vf
from agentmetrology.store.verify import verify_store
from store.verify_fixtures import (  # built_store, store_copy: the built and root fixtures
    built_store,  # noqa: F401
    episode_digests,
    store_copy,  # noqa: F401
    texts,
)

MODES = ("full", "hash-only", "ledger")


def _kinds(root: Path, mode: str) -> set[str]:
    return {p.kind for p in verify_store(root, mode=mode).problems}


# -- the schema ---------------------------------------------------------------------------------

def test_a_view_in_place_of_a_chained_table_is_found(root: Path) -> None:
    cols = ", ".join(r[1] for r in vf.query(root, "PRAGMA table_info(assessments)"))
    vf.execute(root, "ALTER TABLE assessments RENAME TO old_assessments",
               "CREATE TABLE forged AS SELECT * FROM old_assessments",
               "UPDATE forged SET score = 1.0, status = 'PASS'",
               f"CREATE VIEW assessments AS SELECT {cols} FROM old_assessments")
    for mode in MODES:
        q = verify_store(root, mode=mode)
        assert not q.qualified
        found = {(p.kind, p.where) for p in q.problems}
        assert ("schema_changed", "view assessments") in found
        assert ("schema_changed", "table old_assessments") in found
        assert ("schema_changed", "table forged") in found
        assert ("schema_changed", "table assessments") in found  # missing


def test_a_view_with_the_sealed_rows_repeated_is_a_count_mismatch(root: Path) -> None:
    cols = ", ".join(r[1] for r in vf.query(root, "PRAGMA table_info(assessments)"))
    ((n,),) = vf.query(root, "SELECT COUNT(*) FROM assessments")
    vf.execute(root, "ALTER TABLE assessments RENAME TO a2",
               f"CREATE VIEW assessments AS SELECT {cols} FROM a2 UNION ALL "
               f"SELECT {cols} FROM a2")
    q = verify_store(root)
    assert {"schema_changed", "row_count_mismatch"} <= {p.kind for p in q.problems}
    (count,) = [p for p in q.problems if p.kind == "row_count_mismatch"]
    assert (count.where, count.detail) == ("assessments", f"{2 * n} rows, but the chain seals {n}")


@pytest.mark.parametrize("statement, where", [
    ("CREATE TRIGGER t AFTER INSERT ON episodes BEGIN SELECT 1; END", "trigger t"),
    ("CREATE INDEX extra ON episodes(cost)", "index extra"),
    ("CREATE TABLE notes (x)", "table notes"),
    ("CREATE VIEW v AS SELECT 1", "view v"),
])
def test_an_object_the_code_does_not_create_is_found(root: Path, statement: str,
                                                     where: str) -> None:
    vf.execute(root, statement)
    for mode in MODES:
        assert [(p.kind, p.where) for p in verify_store(root, mode=mode).problems] == [
            ("schema_changed", where)]


def test_a_store_without_the_writers_read_side_indexes_is_qualified(root: Path) -> None:
    """A store written before a read-side index existed, and only read since, lacks it: that
    is no schema change (each such index, the partial one of not-launched administrations
    included, is optional), while a missing index of the schema itself still is."""
    from agentmetrology.store.verify_schema import OPTIONAL

    assert {"assessments_verdicts", "administrations_revisions", "chain_by_ref",
                        "administrations_cells", "assessments_scorers",
                        "administrations_not_launched"} == OPTIONAL
    vf.execute(root, *(f"DROP INDEX {name}" for name in sorted(OPTIONAL)))
    for mode in MODES:
        assert verify_store(root, mode=mode).problems == ()
    vf.execute(root, "DROP INDEX attempts_by_status")
    assert [(p.kind, p.where) for p in verify_store(root, mode="ledger").problems] == [
        ("schema_changed", "index attempts_by_status")]


def test_a_changed_table_definition_is_found(root: Path) -> None:
    vf.execute(root, "PRAGMA writable_schema=ON",
               "UPDATE sqlite_master SET sql = replace(sql, 'CHECK (status IN', "
               "'CHECK (status NOT IN') WHERE name = 'assessments'")
    q = verify_store(root)
    assert ("schema_changed", "table assessments") in {(p.kind, p.where) for p in q.problems}


def test_the_schema_version_and_unknown_meta_keys_are_found(root: Path) -> None:
    vf.execute(root, "UPDATE meta SET value = '0' WHERE key = 'schema'",
               "INSERT INTO meta VALUES ('forged', 'x')")
    found = {(p.kind, p.where) for p in verify_store(root, mode="hash-only").problems}
    assert found == {("schema_changed", "meta schema"), ("schema_changed", "meta forged")}


# -- pages --------------------------------------------------------------------------------------

def _swap_index_roots(root: Path) -> None:
    (a, pa), (b, pb) = vf.query(root, "SELECT name, rootpage FROM sqlite_master WHERE name IN "
                                      "('attempts_by_status', 'attempts_by_administration')")
    vf.execute(root, "PRAGMA writable_schema=ON",
               f"UPDATE sqlite_master SET rootpage={pb} WHERE name='{a}'",
               f"UPDATE sqlite_master SET rootpage={pa} WHERE name='{b}'")


def test_swapped_index_pages_fail_the_page_check(root: Path) -> None:
    _swap_index_roots(root)
    q = verify_store(root)
    assert q.result == "invalid_binding"
    pages = [p for p in q.problems if p.kind == "ledger_pages_corrupt"]
    assert pages and all(p.result == "invalid_binding" for p in pages)
    assert {p.where for p in pages} == {"index attempts_by_status",
                                        "index attempts_by_administration"}
    # SQLite's quick check (the hash-only mode's) does not compare indexes with their tables
    assert verify_store(root, mode="hash-only").qualified


def test_a_damaged_page_fails_both_page_checks(root: Path) -> None:
    (page,) = vf.query(root, "SELECT rootpage FROM sqlite_master WHERE name='attempts_by_status'")
    with sqlite3.connect(root / "ledger.sqlite") as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = c.execute("PRAGMA page_size").fetchone()[0]
    with open(root / "ledger.sqlite", "r+b") as f:
        f.seek((page[0] - 1) * size)
        f.write(b"\x00" * 16)  # the page's b-tree header: no valid page type
    for mode in ("full", "hash-only"):
        q = verify_store(root, mode=mode)
        assert q.result == "invalid_binding"
        assert "ledger_pages_corrupt" in {p.kind for p in q.problems}


# -- blob files ---------------------------------------------------------------------------------

def _sealed_non_json_episode(root: Path) -> str:
    """Point episode 1 at a non-JSON blob and reseal (a forger's bytes, self-consistent)."""
    import hashlib
    data = b"not json at all"
    d = hashlib.sha256(data).hexdigest()
    vf.blob(root, d).parent.mkdir(exist_ok=True)
    vf.blob(root, d).write_bytes(data)
    vf.reseal(root, f"UPDATE episodes SET episode_digest='{d}' WHERE administration=1",
              rows=(("episodes", 1),))
    return d


@pytest.mark.parametrize("mode", ["full", "ledger"])
def test_a_non_json_episode_blob_is_named(root: Path, mode: str) -> None:
    d = _sealed_non_json_episode(root)
    q = verify_store(root, mode=mode)
    assert ("row_disagrees_with_evidence", "invalid_binding", "episodes administration=1",
            f"the episode blob {d[:12]} is not a JSON object") in texts(q)


@pytest.mark.parametrize("mode", MODES)
def test_a_symlinked_blob_is_named(root: Path, mode: str, tmp_path: Path) -> None:
    ep, _ = episode_digests(root, 1)
    path = vf.blob(root, ep)
    outside = tmp_path / "outside"
    outside.write_bytes(path.read_bytes())
    path.unlink()
    os.symlink(outside, path)
    q = verify_store(root, mode=mode)
    assert ("blob_not_regular", "invalid_binding", "episodes administration=1 episode",
            f"blob {ep[:12]} is a symbolic link, not a file of the store") in texts(q)


@pytest.mark.parametrize("mode", MODES)
def test_a_symlinked_blobs_folder_is_named(root: Path, mode: str, tmp_path: Path) -> None:
    """The whole `blobs` folder moved outside the store and linked back: every blob's bytes
    live outside it, as for one blob or one `blobs/ab` folder linked (it qualified)."""
    ep, _ = episode_digests(root, 1)
    outside = tmp_path / "outside-blobs"
    shutil.move(root / "blobs", outside)
    os.symlink(outside, root / "blobs")
    q = verify_store(root, mode=mode)
    assert ("blob_not_regular", "invalid_binding", "episodes administration=1 episode",
            f"blob {ep[:12]} is a symbolic link, not a file of the store") in texts(q)
    assert not q.qualified


def test_campaign_status_names_a_non_json_episode_blob(root: Path) -> None:
    from support.agm_runs import run_main
    _sealed_non_json_episode(root)
    res = run_main(["campaign", "status", "--store", str(root)],
                   cwd=root.parent)
    assert "UNQUALIFIED EVIDENCE" in res.stderr and "row_disagrees_with_evidence" in res.stderr


