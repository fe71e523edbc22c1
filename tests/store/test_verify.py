"""What `verify_store` reports, finding by finding, on a small hand-built store (in-process).

Each test edits a fresh copy of one recorded store (store.verify_fixtures) the way a forger or
a disk fault would, and pins the exact problems (kind, result, where, detail), the result and
the counts of what was checked, per mode (docs/evidence.md: full, hash-only, ledger).
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

import store.verify_fixtures as vf
from agentmetrology.store import EvidenceStore
from agentmetrology.store.blobs import contents
from agentmetrology.store.chain import head
from agentmetrology.store.qualify import Qualification
from agentmetrology.store.verify import NotAStoreError, store_is_sealed, verify_store
from store.verify_fixtures import (  # built_store, store_copy: the built and root fixtures
    BOUND,
    CHECKED,
    built_store,  # noqa: F401
    episode_digests,
    files,
    relink,
    sealed_digest,
    store_copy,  # noqa: F401
    texts,
)

OLD = Path(__file__).resolve().parents[1] / "fixtures" / "pre_plugin_store"


# -- a store that qualifies ---------------------------------------------------------------------

def test_the_recorded_store_qualifies_in_every_mode(root: Path) -> None:
    before = files(root)
    calls: list[tuple[str, str, str]] = []

    def reopen(env: str, task: str, profile: str) -> str:
        calls.append((env, task, profile))
        return vf.SPEC

    length, chain_head = vf.query(root, "SELECT seq, head FROM chain ORDER BY seq DESC")[0]
    full = verify_store(root, reopen=reopen)
    assert (full.result, full.qualified, full.mode, full.store) == ("qualified", True, "full",
                                                                    str(root))
    assert (full.head, full.chain_length) == (chain_head, length) == (chain_head, 27)
    assert full.problems == () and full.notes == () and full.migrated_at is None
    assert full.checked == {**CHECKED, **BOUND, "specifications_reopened": 3}
    assert calls == [("comtrade", "T3_duplicates", "seeded")] * 3
    hash_only = verify_store(str(root), mode="hash-only", reopen=reopen)
    assert hash_only.qualified and hash_only.checked == CHECKED and len(calls) == 3
    ledger = verify_store(root, mode="ledger")
    assert ledger.qualified and ledger.checked == {**CHECKED, "blobs_hashed": 0, **BOUND}
    assert files(root) == before


# -- what is not a store, an older layout, a migrated one ----------------------------------------

def test_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(NotAStoreError) as missing:
        verify_store(tmp_path)
    assert str(missing.value) == f"{tmp_path} is not an evidence store (no ledger.sqlite)"
    (tmp_path / "ledger.sqlite").write_bytes(b"not a database at all, just bytes" * 100)
    with pytest.raises(NotAStoreError) as garbage:
        store_is_sealed(tmp_path)
    assert str(garbage.value).startswith(f"{tmp_path}: ledger.sqlite is not a readable ledger (")
    assert str(garbage.value).endswith("; give another store, or restore this one from a copy")
    (tmp_path / "ledger.sqlite").write_bytes(b"")  # a truncated store: was "no such table: meta"
    with pytest.raises(NotAStoreError) as empty:
        verify_store(tmp_path)
    assert str(empty.value) == (f"{tmp_path}: ledger.sqlite is not a readable ledger (an empty "
                                "file: 0 bytes); give another store, or restore this one from "
                                "a copy")
    assert (tmp_path / "ledger.sqlite").read_bytes() == b""
    (tmp_path / "ledger.sqlite").unlink()
    (tmp_path / "ledger.sqlite").mkdir()
    with pytest.raises(NotAStoreError):
        verify_store(tmp_path)


def test_an_older_layout_is_unsealed_then_sealed_by_migration(tmp_path: Path) -> None:
    root = tmp_path / "old"
    shutil.copytree(OLD, root)
    assert not store_is_sealed(root)
    q = verify_store(root, mode="ledger")
    assert q == Qualification(str(root), "ledger", "unsealed", None, 0, notes=(
        "older layout: the ledger has no hash chain; `agm evidence seal STORE` seals it as it "
        "is now",))
    with EvidenceStore.open(root, scrub_env=False) as st:
        n = st.seal_existing()
    assert store_is_sealed(root)
    (at,) = vf.query(root, "SELECT value FROM meta WHERE key='ledger_chain_migrated_at'")[0]
    q = verify_store(root, mode="hash-only")
    assert q.qualified and q.chain_length == n and q.migrated_at == at
    assert q.notes == (f"sealed by migration at {at}: rows recorded before then were sealed "
                       "as found, not as appended",)


# -- the chain -----------------------------------------------------------------------------------

def test_one_edited_head_is_one_finding(root: Path) -> None:
    original = verify_store(root, mode="hash-only").head
    vf.execute(root, f"UPDATE chain SET head='{'f' * 64}' WHERE seq=5")
    q = verify_store(root, mode="hash-only")
    assert texts(q) == [("chain_broken", "invalid_binding", "chain entries 5",
                         "1 head(s) do not follow from the entries before them (the chain was "
                         "edited)")]
    assert q.head == original and q.checked["chain_entries"] == 27


def test_the_head_reported_is_the_last_stored_one(root: Path) -> None:
    vf.execute(root, f"UPDATE chain SET head='{'e' * 64}' WHERE seq=27")
    q = verify_store(root, mode="hash-only")
    assert q.head == "e" * 64 and q.chain_length == 27
    assert [p.where for p in q.problems] == ["chain entries 27"]


@pytest.mark.parametrize(("broken", "where"), [
    (10, "chain entries 1, 2, 3, 4, 5, 6, 7, 8, 9, 10"),
    (11, "chain entries 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 1 more"),
    (13, "chain entries 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 3 more")])
def test_many_broken_heads_list_ten(root: Path, broken: int, where: str) -> None:
    vf.execute(root, f"UPDATE chain SET head='x' WHERE seq<={broken}")
    assert texts(verify_store(root, mode="hash-only")) == [
        ("chain_broken", "invalid_binding", where,
         f"{broken} head(s) do not follow from the entries before them (the chain was edited)")]


def test_a_reordered_chain_breaks_every_head_after_the_swap(root: Path) -> None:
    (a,), (b,) = vf.query(root, "SELECT tbl || '|' || ref || '|' || row_digest FROM chain "
                                "WHERE seq IN (25, 26) ORDER BY seq")
    ta, ra, da = str(a).split("|")
    tb, rb, db = str(b).split("|")
    vf.execute(root, f"UPDATE chain SET tbl='{tb}', ref='{rb}', row_digest='{db}' WHERE seq=25",
               f"UPDATE chain SET tbl='{ta}', ref='{ra}', row_digest='{da}' WHERE seq=26")
    q = verify_store(root, mode="hash-only")
    assert texts(q) == [("chain_broken", "invalid_binding", "chain entries 25, 26, 27",
                         "3 head(s) do not follow from the entries before them (the chain was "
                         "edited)")]


def test_the_verified_head_is_the_chain_head(root: Path) -> None:
    conn = sqlite3.connect(root / "ledger.sqlite")
    try:
        assert verify_store(root).head == head(conn)[1]
    finally:
        conn.close()


def test_a_relinked_chain_with_an_edited_entry_is_a_changed_row(root: Path) -> None:
    sealed = sealed_digest(root, "runs", "1")
    vf.execute(root, f"UPDATE chain SET row_digest='{'b' * 64}' WHERE seq=27")
    relink(root)
    q = verify_store(root, mode="hash-only")
    (witnessed,) = vf.query(root, "SELECT head FROM chain WHERE seq=27")
    assert texts(q) == [
        # the head log witnessed the chain before the relink (store.head_log)
        ("head_log_mismatch", "invalid_binding", "ledger.heads length 27",
         f"the log witnessed head {vf.log_head(root, 27)[:12]}, the chain's head there is "
         f"{str(witnessed[0])[:12]}: the chain was rewritten"),
        ("row_changed", "invalid_binding", "runs id=1",
         f"its content no longer hashes to the digest sealed for it "
         f"({'b' * 12}): edited in place")]
    assert sealed != "b" * 64


# -- rows ----------------------------------------------------------------------------------------

def test_a_row_edited_in_place(root: Path) -> None:
    sealed = sealed_digest(root, "episodes", "1")
    vf.execute(root, "UPDATE episodes SET cost=0.5 WHERE administration=1")
    changed = ("row_changed", "invalid_binding", "episodes administration=1",
               f"its content no longer hashes to the digest sealed for it ({sealed[:12]}): "
               "edited in place")
    assert texts(verify_store(root, mode="hash-only")) == [changed]
    assert texts(verify_store(root, mode="ledger")) == [changed, (
        "row_disagrees_with_evidence", "invalid_binding", "episodes administration=1",
        "cost is 0.5 in the ledger but 0.75 in the episode blob")]


def test_an_edited_chain_digest_is_a_changed_row_and_a_broken_chain(root: Path) -> None:
    vf.execute(root, f"UPDATE chain SET row_digest='{'a' * 64}' WHERE seq=27")
    assert texts(verify_store(root, mode="hash-only")) == [
        ("chain_broken", "invalid_binding", "chain entries 27",
         "1 head(s) do not follow from the entries before them (the chain was edited)"),
        ("row_changed", "invalid_binding", "runs id=1",
         f"its content no longer hashes to the digest sealed for it ({'a' * 12}): edited in "
         "place")]


def test_rows_added_outside_the_ledger(root: Path) -> None:
    insert = ("INSERT INTO runs (campaign, backend, pid, host, started_at) "
              "VALUES ('c1', 'inline', 1, 'h', 't')")
    vf.execute(root, insert, insert)
    q = verify_store(root, mode="hash-only")
    assert texts(q) == [("row_not_sealed", "invalid_binding", f"runs id={i}",
                         "the row is in no chain entry (added outside the ledger's API)")
                        for i in (2, 3)]  # every one, not the first only
    assert q.checked["rows"] == 19


REMOVED = ("the chain records a removal the ledger's writers never make (only "
           "--retry-measurement-failures removes a row: an episode or its assessments, moved to "
           "history)")


def test_a_row_the_chain_records_as_removed(root: Path) -> None:
    row = vf.query(root, "SELECT * FROM runs WHERE id=1")[0]
    vf.reseal(root, "DELETE FROM runs WHERE id=1", rows=(("runs", 1),))  # sealed as removed
    marks = ", ".join("?" * len(row))
    conn = sqlite3.connect(root / "ledger.sqlite")
    conn.execute(f"INSERT INTO runs VALUES ({marks})", row)  # ...and put back unsealed
    conn.commit()
    conn.close()
    q = verify_store(root, mode="hash-only")
    assert texts(q) == [("row_not_sealed", "invalid_binding", "runs id=1",
                         "the chain records this row as removed"),
                        ("row_removed", "invalid_binding", "runs id=1", REMOVED)]
    assert q.chain_length == 28


def test_a_deleted_row_is_unavailable(root: Path) -> None:
    vf.execute(root, "DELETE FROM assessments WHERE id=2")
    q = verify_store(root, mode="hash-only")
    assert q.result == "unavailable" and q.checked["rows"] == 16
    assert texts(q) == [("row_deleted", "unavailable", "assessments id=2",
                         "sealed but no longer in the ledger")]


def test_a_row_removed_with_a_chain_entry_no_writer_makes(root: Path) -> None:
    # Before, a run deleted with its removal appended to the chain qualified: only an episode
    # and its assessments are ever removed (moved to history), so the removal is the finding.
    vf.reseal(root, "DELETE FROM runs WHERE id=1", rows=(("runs", 1),))
    q = verify_store(root, mode="hash-only")
    assert q.checked["rows"] == 16
    assert texts(q) == [("row_removed", "invalid_binding", "runs id=1", REMOVED)]


def test_a_deleted_row_and_an_edited_row_give_invalid(root: Path) -> None:
    vf.execute(root, "DELETE FROM assessments WHERE id=2", "UPDATE runs SET outcome='x'")
    q = verify_store(root, mode="hash-only")
    assert q.result == "invalid_binding"
    assert [(p.kind, p.result) for p in q.problems] == [("row_changed", "invalid_binding"),
                                                        ("row_deleted", "unavailable")]


# -- texts ---------------------------------------------------------------------------------------

def test_binding_and_assessment_texts_against_their_digests(root: Path) -> None:
    zeros = "0" * 64
    vf.reseal(root, f"UPDATE administrations SET binding_digest='{zeros}' WHERE id=2",
              f"UPDATE assessments SET assessment_digest='{zeros}' WHERE id=3",
              f"UPDATE superseded_assessments SET assessment_digest='{zeros}' WHERE id=1",
              rows=(("administrations", 2), ("assessments", 3), ("superseded_assessments", 1)))
    expected = [
        # the history row is no longer the assessment its removal removed (a rewrite of its own
        # chain entry, not an appended one: the lifecycle holds it against what was removed)
        ("history_changed", "invalid_binding", "superseded_assessments id=1",
         "an assessment of the superseded episode id=1 (administration 2) that is none of the "
         "assessments its removal removed (its columns do not hash to any of their sealed "
         "digests): the history changed outside --retry-measurement-failures"),
        ("binding_text_changed", "invalid_binding", "administration 2",
         "the sealed binding no longer hashes to binding_digest"),
        ("assessment_text_changed", "invalid_binding", "assessments id=3",
         "the assessment no longer hashes to assessment_digest"),
        ("assessment_text_changed", "invalid_binding", "superseded_assessments id=1",
         "the assessment no longer hashes to assessment_digest")]
    assert texts(verify_store(root, mode="hash-only")) == expected


def test_texts_are_hashed_as_utf8(root: Path) -> None:
    text = vf.query(root, "SELECT binding FROM administrations WHERE id=1")[0][0]
    vf.set_binding(root, 1, str(text).replace('"seeded"', '"séeded"'))
    q = verify_store(root, mode="hash-only")
    assert q.qualified


# -- blobs ---------------------------------------------------------------------------------------

def test_an_edited_episode_blob(root: Path) -> None:
    ep, _ = episode_digests(root, 1)
    path = vf.blob(root, ep)
    path.chmod(0o644)
    path.write_bytes(contents(path.read_bytes()).replace(b'"', b"'", 1))  # stored as is
    now = hashlib.sha256(path.read_bytes()).hexdigest()
    q = verify_store(root, mode="hash-only")
    assert texts(q) == [("blob_changed", "invalid_binding", "episodes administration=1 episode",
                         f"blob {ep[:12]}'s bytes now hash to {now[:12]}")]
    assert q.checked == CHECKED
    # the cheap mode hashes no blob, but it reads the episode, which is no longer JSON
    assert texts(verify_store(root, mode="ledger")) == [
        ("row_disagrees_with_evidence", "invalid_binding", "episodes administration=1",
         f"the episode blob {ep[:12]} is not a JSON object")]
    full = verify_store(root)
    assert texts(full) == texts(q)  # the episode checks skip a blob that failed its hash


def test_an_edited_shared_blob_is_flagged_at_every_reference(root: Path) -> None:
    _, sub = episode_digests(root, 1)
    assert episode_digests(root, 2)[1] == sub  # both submissions have the same bytes
    path = vf.blob(root, sub)
    path.chmod(0o644)
    path.write_bytes(b"{}")
    q = verify_store(root, mode="hash-only")
    assert texts(q) == [
        ("blob_changed", "invalid_binding", "episodes administration=1 submission",
         f"blob {sub[:12]}'s bytes now hash to 44136fa355b3"),  # sha256(b'{}')
        ("blob_changed", "invalid_binding", "episodes administration=2 submission",
         f"blob {sub[:12]} (see above)")]
    assert q.checked == CHECKED


def test_a_missing_shared_blob_is_unavailable_at_every_reference(root: Path) -> None:
    _, sub = episode_digests(root, 1)
    vf.blob(root, sub).unlink()
    for mode in ("hash-only", "ledger", "full"):
        q = verify_store(root, mode=mode)
        assert q.result == "unavailable", mode
        assert texts(q) == [
            ("blob_missing", "unavailable", "episodes administration=1 submission",
             f"blob {sub} is not in the store"),
            ("blob_missing", "unavailable", "episodes administration=2 submission",
             f"blob {sub[:12]} (see above)")], mode
    assert verify_store(root, mode="hash-only").checked == {**CHECKED, "blobs_hashed": 5}


def test_campaign_config_and_source_blobs_are_checked(root: Path) -> None:
    cfg, src = vf.query(root, "SELECT config_digest, source_digest FROM campaigns")[0]
    vf.blob(root, str(cfg)).unlink()
    vf.blob(root, str(src)).unlink()
    assert texts(verify_store(root, mode="hash-only")) == [
        ("blob_missing", "unavailable", "campaign c1 config", f"blob {cfg} is not in the store"),
        ("blob_missing", "unavailable", "campaign c1 source", f"blob {src} is not in the store")]


def test_a_campaign_without_source_references_no_source(root: Path) -> None:
    vf.reseal(root, "UPDATE campaigns SET source_digest=NULL", rows=(("campaigns", "c1"),))
    q = verify_store(root, mode="hash-only")
    assert q.qualified and q.checked["blob_references"] == 6


def test_the_superseded_episode_blob_is_checked(root: Path) -> None:
    (ep,) = vf.query(root, "SELECT episode_digest FROM superseded_episodes WHERE id=1")[0]
    vf.blob(root, str(ep)).unlink()
    assert texts(verify_store(root, mode="hash-only")) == [
        ("blob_missing", "unavailable", "superseded_episodes id=1 episode",
         f"blob {ep} is not in the store")]


def test_a_digest_that_is_not_a_blob_name_is_missing(root: Path) -> None:
    _, sub = episode_digests(root, 1)
    # The same file exists under the upper-case name's path on a case-insensitive disk only;
    # a name store.paths would refuse is never a blob, wherever a file happens to be.
    for bad in (sub.upper(), "ab", "../" + sub):
        vf.reseal(root, f"UPDATE episodes SET submission_digest='{bad}' WHERE administration=1",
                  rows=(("episodes", 1),))
        q = verify_store(root, mode="hash-only")
        assert texts(q) == [("blob_missing", "unavailable",
                             "episodes administration=1 submission",
                             f"blob {bad} is not in the store")], bad


def test_stray_files_in_the_blob_directory_are_not_blobs(root: Path) -> None:
    _, sub = episode_digests(root, 1)
    vf.blob(root, sub).unlink()
    (root / "blobs" / (sub[:2] + sub[2:])).write_bytes(b"{}")  # a file, not a fan-out dir
    (root / "blobs" / sub[:2] / sub[2:]).mkdir()  # a directory where the blob was
    q = verify_store(root, mode="hash-only")
    assert [p.kind for p in q.problems] == ["blob_missing", "blob_missing"]


def test_no_blob_directory_at_all(root: Path) -> None:
    shutil.rmtree(root / "blobs")
    q = verify_store(root, mode="hash-only")
    assert q.result == "unavailable" and len(q.problems) == 7 and q.checked["blobs_hashed"] == 0


# An admitted case k1, as `agm cases` records one (store.case_steps): proposed, calibrated,
# admitted; its uses follow (the first one makes it active).
ADMITTED_CASE = ("INSERT INTO cases VALUES ('k1', 'comtrade', 'T3_duplicates', 0, 'clean', 'L2', "
                 "'seeded', '{}', 'd', 't')",
                 *(f"INSERT INTO case_events VALUES ({i}, 'k1', '{state}', '{action}', '{{}}', "
                   "'t')" for i, (state, action) in enumerate(
                       (("proposed", "propose"), ("calibrated", "calibrate"),
                        ("admitted", "admit")), 1)))
ADMITTED_ROWS = (("cases", "k1"), *(("case_events", i) for i in (1, 2, 3)))


def test_case_use_receipts_name_blobs_that_are_checked(root: Path) -> None:
    ep, sub = episode_digests(root, 1)
    vf.reseal(root, *ADMITTED_CASE,
              f"INSERT INTO case_uses VALUES (1, 'k1', 'a', 'L2', '{ep}', '{sub}', 'PASS', 'ok', "
              "'t')",
              "INSERT INTO case_events VALUES (4, 'k1', 'active', 'first use', '{}', 't')",
              f"INSERT INTO case_uses VALUES (2, 'k1', 'a', 'L2', '{'0' * 64}', NULL, 'PASS', "
              "'ok', 't')",
              rows=(*ADMITTED_ROWS, ("case_uses", 1), ("case_events", 4), ("case_uses", 2)))
    q = verify_store(root, mode="hash-only")
    assert texts(q) == [("blob_missing", "unavailable", "case_uses id=2 episode",
                         f"blob {'0' * 64} is not in the store")]
    assert q.checked["blob_references"] == 10 and q.checked["rows"] == 24


def test_a_table_an_older_store_lacks_is_skipped_not_the_rest(root: Path) -> None:
    ep, sub = episode_digests(root, 1)
    vf.reseal(root, *ADMITTED_CASE,
              f"INSERT INTO case_uses VALUES (1, 'k1', 'a', 'L2', '{ep}', '{sub}', 'PASS', 'ok', "
              "'t')", rows=(*ADMITTED_ROWS, ("case_uses", 1)))
    vf.execute(root, "DROP TABLE billable_attempts",  # empty here: no chain entry names it
               "UPDATE case_uses SET result='edited'")
    q = verify_store(root, mode="hash-only")
    assert [(p.kind, p.where) for p in q.problems] == [("row_changed", "case_uses id=1")]


def test_a_chain_entry_for_a_table_the_ledger_does_not_keep(root: Path) -> None:
    vf.execute(root, "INSERT INTO chain (tbl, ref, row_digest, head) "
                     f"VALUES ('notes', '1', '{'c' * 64}', 'x')")
    relink(root)
    q = verify_store(root, mode="hash-only")
    # A forged entry, heads relinked: no row backs it, so it is named (it once qualified)
    assert q.chain_length == 28 and texts(q) == [(
        "schema_changed", "invalid_binding", "chain entries of table 'notes'",
        "the chain seals rows of a table the ledger's code never creates")]


def test_an_assessment_text_that_is_json_but_not_an_object(root: Path) -> None:
    text = "[1]"  # resealed with its digest: the check names it, never an AttributeError
    vf.reseal(root, f"UPDATE assessments SET assessment='{text}', assessment_digest="
                    f"'{hashlib.sha256(text.encode()).hexdigest()}' WHERE id=1",
              rows=(("assessments", 1),))
    q = verify_store(root, mode="ledger")
    assert [t[0] for t in texts(q)] == ["assessment_unreadable"]
    assert texts(q)[0][2].startswith("assessments id=1 ") and texts(q)[0][3] == "not a JSON object"


def test_an_episode_blob_whose_usage_is_not_an_object(root: Path) -> None:
    # A forger's new blob (its own digest, the row pointed at it and resealed): the check
    # names it, never a TypeError out of the check.
    import json
    ep, _ = vf.episode_digests(root, 1)
    plain = json.loads(contents(vf.blob(root, ep).read_bytes()))
    plain["usage"] = [1]
    data = json.dumps(plain, sort_keys=True, separators=(",", ":")).encode()
    forged = hashlib.sha256(data).hexdigest()
    vf.blob(root, forged).parent.mkdir(parents=True, exist_ok=True)
    vf.blob(root, forged).write_bytes(data)
    vf.reseal(root, f"UPDATE episodes SET episode_digest='{forged}' WHERE administration=1",
              rows=(("episodes", 1),))
    for mode in ("full", "ledger"):
        found = [t for t in texts(verify_store(root, mode=mode))
                 if t[2] == "episodes administration=1"]
        assert [t[0] for t in found] == ["row_disagrees_with_evidence"]
        assert f"the episode blob {forged[:12]} has no readable" in found[0][3]
