"""A row sealed again, or removed, by an entry appended to the chain: the writers never do it.

Before, a forger who edited a row and appended one chain entry with its new digest (and one
line to the head log) passed every check, full and incremental, and even a head pinned before
the edit (the store had only grown since): a stored score, an attempt, a campaign's planned
count changed, an episode or an assessment vanished, and the store qualified.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

import store.verify_fixtures as vf
from agentmetrology.store import DuplicateEpisodeError, EvidenceStore
from agentmetrology.store.blobs import BlobStore
from agentmetrology.store.head_log import HEAD_LOG_FILE, HEAD_LOG_META
from agentmetrology.store.verify import store_head, verify_store
from agentmetrology.store.verify_lifecycle import found_as
from store.verify_fixtures import (  # built_store, store_copy: the built and root fixtures
    built_store,  # noqa: F401
    store_copy,  # noqa: F401
    texts,
)

RESEALED_ONCE = ("sealed again with another content (the ledger writes this row once and never "
                 "changes it): an edit appended to the chain")


def _score(root: Path, aid: int, score: float) -> tuple[str, tuple]:
    """The UPDATE of an assessment's score, in its column and its sealed text (digest too)."""
    doc = json.loads(str(vf.query(root, "SELECT assessment FROM assessments WHERE id=?",
                                  aid)[0][0]))
    text = json.dumps({**doc, "score": score}, sort_keys=True, separators=(",", ":"))
    return ("UPDATE assessments SET score=?, assessment=?, assessment_digest=? WHERE id=?",
            (score, text, hashlib.sha256(text.encode()).hexdigest(), aid))


def test_a_score_resealed_by_an_appended_entry(root: Path) -> None:
    verified = verify_store(root)
    assert verified.qualified and verified.resume is not None
    pinned = store_head(root)
    vf.forge(root, [("assessments", 2)], _score(root, 2, 99.0))
    want = [("row_resealed", "invalid_binding", "assessments id=2", RESEALED_ONCE)]
    for mode in ("full", "hash-only", "ledger"):
        assert texts(verify_store(root, mode=mode)) == want, mode
    since = verify_store(root, since=verified.resume)
    assert since.since == f"{pinned[0]}:{pinned[1]}" and texts(since) == want
    assert texts(verify_store(root, expect=pinned)) == want  # only grew since: still caught


def test_an_attempt_sealed_a_third_time(root: Path) -> None:
    vf.forge(root, [("attempts", 1)], ("UPDATE attempts SET detail='forged' WHERE id=1", ()))
    assert texts(verify_store(root, mode="hash-only")) == [(
        "row_resealed", "invalid_binding", "attempts id=1",
        "sealed again with another content (a run or an attempt is sealed when it starts and "
        "once when it ends): an edit appended to the chain")]


def test_a_campaign_resealed(root: Path) -> None:
    vf.forge(root, [("campaigns", "c1")],
           ("UPDATE campaigns SET created_at='2000-01-01' WHERE name='c1'", ()))
    assert texts(verify_store(root, mode="hash-only")) == [
        ("row_resealed", "invalid_binding", "campaigns name=c1", RESEALED_ONCE)]


def test_an_episode_removed_without_history(root: Path) -> None:
    verified = verify_store(root)
    assert verified.resume is not None
    ids = [int(str(r[0])) for r in vf.query(
        root, "SELECT id FROM assessments WHERE administration=1 ORDER BY id")]
    vf.forge(root, [*(("assessments", i) for i in ids), ("episodes", 1)],
           ("DELETE FROM assessments WHERE administration=1", ()),
           ("DELETE FROM episodes WHERE administration=1", ()))
    want = [("row_removed", "invalid_binding", "episodes administration=1",
             "the chain records 1 removal(s) of its episode, but 0 superseded episode(s) of it "
             "are in the history: an episode was removed outside --retry-measurement-failures"),
            ("row_removed", "invalid_binding", "assessments",
             "the chain records 4 removal(s) of assessments, but 2 superseded assessment(s) "
             "were moved to the history with them: an assessment was removed outside "
             "--retry-measurement-failures")]
    # the whole check also finds the episode's attempt finished with no episode naming it
    ended = ("attempt_end_disagrees", "invalid_binding", "attempts id=1", "finished, but no "
             "episode (recorded or superseded) names it: the ledger finishes an attempt only "
             "with its episode")
    assert texts(verify_store(root, mode="hash-only")) == [*want, ended]
    since = texts(verify_store(root, since=verified.resume))
    assert since == [want[0], (*want[1][:3], want[1][3].replace("4 removal", "2 removal")
                                                 .replace("but 2", "but 0"))]


def test_one_assessment_removed(root: Path) -> None:
    vf.forge(root, [("assessments", 2)], ("DELETE FROM assessments WHERE id=2", ()))
    assert [p.kind for p in verify_store(root).problems] == ["row_removed"]


def test_a_supersede_and_a_reused_assessment_id_are_no_finding(root: Path) -> None:
    # administration 2's first episode was moved to history and its assessments' ids reused
    assert vf.query(root, "SELECT COUNT(*) FROM superseded_assessments")[0][0] == 2
    assert vf.query(root, "SELECT COUNT(*) FROM chain WHERE tbl='assessments' AND ref IN "
                          "('3', '4')")[0][0] == 6
    assert verify_store(root).qualified


def _migrated(root: Path, old: Path) -> Path:
    """Return a copy of the store at `old` as an older ledger sealed by migration."""
    shutil.copytree(root, old)
    vf.execute(old, "DELETE FROM chain",
               f"DELETE FROM meta WHERE key IN ('ledger_chain', '{HEAD_LOG_META}')")
    (old / HEAD_LOG_FILE).unlink()
    with EvidenceStore.open(old, scrub_env=False) as st:
        assert st.seal_existing() > 0
    return old


def test_history_from_before_a_migration_is_no_finding(root: Path, tmp_path: Path) -> None:
    old = _migrated(root, tmp_path / "old")
    q = verify_store(old)
    assert q.qualified, texts(q)
    ids = [int(str(r[0])) for r in vf.query(
        old, "SELECT id FROM assessments WHERE administration=1 ORDER BY id")]
    vf.forge(old, [*(("assessments", i) for i in ids), ("episodes", 1)],
           ("DELETE FROM assessments WHERE administration=1", ()),
           ("DELETE FROM episodes WHERE administration=1", ()))
    assert [p.kind for p in verify_store(old).problems] == [
        "row_removed", "row_removed", "attempt_end_disagrees"]  # its attempt has no episode


def test_a_retry_after_a_migration_and_a_rejected_attempt_are_no_finding(
        root: Path, tmp_path: Path) -> None:
    # The legitimate writers after `agm evidence seal` migrated an older ledger (whose history
    # predates the migration): --retry-measurement-failures moves a failure to history twice,
    # a duplicate episode fails its attempt, recovery interrupts another; each run ends once.
    old = _migrated(root, tmp_path / "old")
    before = verify_store(old)
    assert before.qualified and before.resume is not None
    with vf.stores.open_store(old) as st:
        run = st.begin_run("c1", "inline")
        adm = st.ledger.administration(vf.key(2))
        assert adm is not None
        for kind in ("infra_error", "infra_error", "submitted"):
            st.record_episode(st.start_attempt(adm, run, "inline"),
                              *vf.episode(vf.key(2), kind, (0.1,)))
            if kind == "infra_error":
                assert st.supersede_measurement_failures("c1", run) == 1
        done = st.ledger.administration(vf.key(0))
        assert done is not None
        with pytest.raises(DuplicateEpisodeError):
            st.record_episode(st.start_attempt(done, run, "inline"),
                              *vf.episode(vf.key(0), "submitted", ()))
        st.start_attempt(done, run, "inline")
        assert st.recover() == 1
        st.end_run(run, "completed")
    for q in (verify_store(old), verify_store(old, mode="hash-only"),
              verify_store(old, since=before.resume)):
        assert q.qualified, texts(q)
    assert vf.query(old, "SELECT COUNT(*) FROM superseded_episodes")[0][0] == 3


@pytest.mark.parametrize("hours", [1, -1])
def test_a_retry_on_a_machine_whose_clock_disagrees_is_no_finding(
        root: Path, tmp_path: Path, hours: int) -> None:
    # The history rows a removal must account for were picked by `superseded_at` against the
    # migration's time, two machines' clocks: `agm evidence seal` run where the clock was an
    # hour ahead made an honest retry two row_removed findings. Chain order decides now.
    from datetime import UTC, datetime, timedelta

    old = _migrated(root, tmp_path / "old")
    skewed = (datetime.now(UTC) + timedelta(hours=hours)).isoformat(timespec="milliseconds")
    vf.execute(old, f"UPDATE meta SET value='{skewed}' WHERE key='ledger_chain_migrated_at'")
    before = verify_store(old)
    assert before.qualified, texts(before)
    with vf.stores.open_store(old) as st:
        run = st.begin_run("c1", "inline")
        adm = st.ledger.administration(vf.key(2))
        assert adm is not None
        st.record_episode(st.start_attempt(adm, run, "inline"),
                          *vf.episode(vf.key(2), "infra_error", (0.1,)))
        assert st.supersede_measurement_failures("c1", run) == 1
        st.end_run(run, "completed")
    for q in (verify_store(old), verify_store(old, since=before.resume)):
        assert q.qualified, texts(q)


HISTORY_ADDED = ("a superseded episode of administration 2 that no removal of its episode moved "
                 "there (its chain entry follows none): added to the history outside "
                 "--retry-measurement-failures")
_HISTORY_COLUMNS = ("administration, episode_digest, submission_digest, termination, "
                    "termination_detail, measurement_failure, cost, input_tokens, "
                    "output_tokens, requests, tool_calls, model_attempts, recorded_at, "
                    "superseded_by_run, superseded_at")


def _add_history(root: Path, attempt: int) -> None:
    """Forge a second superseded failure of administration 2 (a copy of its real one), sealed
    by an appended entry that follows no removal."""
    n = int(str(vf.query(root, "SELECT MAX(id) FROM superseded_episodes")[0][0])) + 1
    vf.forge(root, [("superseded_episodes", n)],
           (f"INSERT INTO superseded_episodes (id, attempt, {_HISTORY_COLUMNS}) SELECT ?, ?, "
            f"{_HISTORY_COLUMNS} FROM superseded_episodes WHERE id=1", (n, attempt)))


def test_a_history_row_added_without_a_removal(root: Path) -> None:
    # Before, the full check counted only the history rows that follow a removal and never
    # looked at the others (taken for rows a migration sealed as found): a superseded failure
    # added to an administration's record qualified, full and incremental.
    verified = verify_store(root)
    assert verified.resume is not None
    _add_history(root, 1)
    want = [("history_added", "invalid_binding", "superseded_episodes id=2", HISTORY_ADDED)]
    for mode in ("full", "hash-only", "ledger"):
        assert texts(verify_store(root, mode=mode)) == want, mode
    assert texts(verify_store(root, since=verified.resume)) == want


def test_history_added_after_a_migration_is_found(root: Path, tmp_path: Path) -> None:
    # The history a migration sealed as found follows no removal and is no finding; a row
    # added after it is, right after the migration or later.
    old = _migrated(root, tmp_path / "old")
    before = verify_store(old)
    assert before.qualified and before.resume is not None
    _add_history(old, 1)
    n = int(str(vf.query(old, "SELECT MAX(id) FROM superseded_episodes")[0][0]))
    want = [("history_added", "invalid_binding", f"superseded_episodes id={n}", HISTORY_ADDED)]
    assert texts(verify_store(old)) == want
    assert texts(verify_store(old, since=before.resume)) == want


def test_an_assessment_added_to_history_found_by_a_migration(root: Path,
                                                               tmp_path: Path) -> None:
    # Before, the full check counted the history rows of assessments under a history row that
    # follows a removal: one added under a row a migration sealed as found was counted by the
    # incremental check only (the two disagreed). Both count those sealed after it now.
    old = _migrated(root, tmp_path / "old")
    before = verify_store(old)
    assert before.qualified and before.resume is not None
    n = int(str(vf.query(old, "SELECT MAX(id) FROM superseded_assessments")[0][0])) + 1
    cols = "superseded, administration, scorer, status, score, evidence_digest, " \
           "assessment, assessment_digest"
    vf.forge(old, [("superseded_assessments", n)],  # another version of a scorer's assessment
           (f"INSERT INTO superseded_assessments (id, scorer_version, {cols}) SELECT ?, "
            f"'9.9.9', {cols} FROM superseded_assessments WHERE id=1", (n,)))
    want = [("row_removed", "invalid_binding", "assessments",
             "the chain records 0 removal(s) of assessments, but 1 superseded assessment(s) "
             "were moved to the history with them: an assessment was removed outside "
             "--retry-measurement-failures")]
    assert texts(verify_store(old, mode="hash-only")) == want
    for q in (verify_store(old), verify_store(old, since=before.resume)):  # also: the version
        assert [t for t in texts(q) if t[0] != "instrument_mismatch"] == want


def test_a_migration_seals_as_found_up_to_its_last_entry(root: Path, tmp_path: Path) -> None:
    # Where the migration's entries end is read from the chain's order (seal_all seals one
    # table after another) and bounded by where the head log started.
    old = _migrated(root, tmp_path / "old")
    sealed = int(str(vf.query(old, "SELECT COUNT(*) FROM chain")[0][0]))
    _add_history(old, 1)
    conn = sqlite3.connect(old / "ledger.sqlite")
    try:
        assert found_as(conn, 0) == sealed
        assert found_as(conn, sealed + 1) == sealed + 1
        conn.execute(f"DELETE FROM meta WHERE key='{HEAD_LOG_META}'")  # before head logs
        assert found_as(conn, 0) == sealed
    finally:
        conn.close()
    assert found_as(sqlite3.connect(root / "ledger.sqlite"), 0) == 0  # sealed since created


HISTORY_CHANGED = ("a superseded episode of administration 1 that is not the episode its removal "
                   "removed (its columns do not hash to that episode's sealed digest): an "
                   "episode that was no measurement failure moved to history outside "
                   "--retry-measurement-failures")
_EPISODE_COLUMNS = _HISTORY_COLUMNS.removesuffix(", superseded_by_run, superseded_at")


def _relabelled(root: Path, adm: int) -> str:
    """Store a copy of an episode's blob relabelled as an infrastructure error; its digest."""
    blobs = BlobStore(root)
    digest = str(vf.query(root, "SELECT episode_digest FROM episodes WHERE administration=?",
                          adm)[0][0])
    doc = json.loads(blobs.get(digest))
    doc["termination"] = {**doc["termination"], "kind": "infra_error"}
    return blobs.put(json.dumps(doc, sort_keys=True).encode())


def test_an_episode_that_was_no_failure_moved_to_history(root: Path) -> None:
    # A forger "retries" an agent's recorded failure: its episode and assessments moved to
    # history as `--retry-measurement-failures` moves them (the same rows, removals and seal
    # order, one appended head-log line), the history row relabelled as an infrastructure
    # error and pointed at a relabelled copy of its blob (so it agrees with its blob). Before,
    # every check qualified it, against a head pinned before too: a failure left the scores.
    verified = verify_store(root)
    assert verified.qualified and verified.resume is not None
    pinned = store_head(root)
    blob = _relabelled(root, 1)
    ids = [int(str(r[0])) for r in vf.query(
        root, "SELECT id FROM assessments WHERE administration=1 ORDER BY id")]
    cols = _EPISODE_COLUMNS.replace("episode_digest", "?").replace("termination,", "?,", 1)
    cols = cols.replace("measurement_failure", "1")
    vf.forge(root, [*(("assessments", i) for i in ids), ("episodes", 1),
                    ("superseded_episodes", 2), ("superseded_assessments", 3),
                    ("superseded_assessments", 4)],
             (f"INSERT INTO superseded_episodes (id, attempt, {_HISTORY_COLUMNS}) SELECT 2, "
              f"attempt, {cols}, NULL, 'x' FROM episodes WHERE administration=1",
              (blob, "infra_error")),
             ("INSERT INTO superseded_assessments (superseded, administration, scorer, "
              "scorer_version, status, score, evidence_digest, assessment, assessment_digest) "
              "SELECT 2, administration, scorer, scorer_version, status, score, "
              "evidence_digest, assessment, assessment_digest FROM assessments "
              "WHERE administration=1 ORDER BY id", ()),
             ("DELETE FROM assessments WHERE administration=1", ()),
             ("DELETE FROM episodes WHERE administration=1", ()))
    want = [("history_changed", "invalid_binding", "superseded_episodes id=2", HISTORY_CHANGED)]
    for mode in ("full", "hash-only", "ledger"):
        assert texts(verify_store(root, mode=mode)) == want, mode
    assert texts(verify_store(root, since=verified.resume)) == want
    assert texts(verify_store(root, expect=pinned)) == want  # only grew since: still caught


def test_a_measurement_failure_moved_to_history_with_other_assessments(root: Path) -> None:
    # A genuine measurement failure retried as `--retry-measurement-failures` retries it, but
    # its history assessments written otherwise than the assessments removed (a status and
    # score changed in the column and the sealed text, its digest recomputed). Before, every
    # check qualified it: the history no longer told what the failure had been assessed.
    with vf.stores.open_store(root) as st:
        run = st.begin_run("c1", "inline")
        a = st.ledger.administration(vf.key(2))
        assert a is not None
        st.record_episode(st.start_attempt(a, run, "inline"),
                          *vf.episode(vf.key(2), "infra_error", (0.1,)))
        st.end_run(run, "completed")
    adm = a.id
    verified = verify_store(root)
    assert verified.qualified and verified.resume is not None
    ids = [int(str(r[0])) for r in vf.query(
        root, "SELECT id FROM assessments WHERE administration=? ORDER BY id", adm)]
    sid = int(str(vf.query(root, "SELECT MAX(id) FROM superseded_episodes")[0][0])) + 1
    first = int(str(vf.query(root, "SELECT MAX(id) FROM superseded_assessments")[0][0])) + 1
    doc = json.loads(str(vf.query(root, "SELECT assessment FROM assessments WHERE id=?",
                                  ids[0])[0][0]))
    text = json.dumps({**doc, "status": "FAIL", "score": 0.0}, sort_keys=True,
                      separators=(",", ":"))
    vf.forge(root, [*(("assessments", i) for i in ids), ("episodes", adm),
                    ("superseded_episodes", sid),
                    *(("superseded_assessments", first + k) for k in range(len(ids)))],
             (f"INSERT INTO superseded_episodes (id, attempt, {_HISTORY_COLUMNS}) SELECT ?, "
              f"attempt, {_EPISODE_COLUMNS}, NULL, 'x' FROM episodes WHERE administration=?",
              (sid, adm)),
             ("INSERT INTO superseded_assessments (superseded, administration, scorer, "
              "scorer_version, status, score, evidence_digest, assessment, assessment_digest) "
              "SELECT ?, administration, scorer, scorer_version, status, score, "
              "evidence_digest, assessment, assessment_digest FROM assessments "
              "WHERE administration=? ORDER BY id", (sid, adm)),
             ("UPDATE superseded_assessments SET status='FAIL', score=0.0, assessment=?, "
              "assessment_digest=? WHERE id=?",
              (text, hashlib.sha256(text.encode()).hexdigest(), first)),
             ("DELETE FROM assessments WHERE administration=?", (adm,)),
             ("DELETE FROM episodes WHERE administration=?", (adm,)))
    want = [("history_changed", "invalid_binding", f"superseded_assessments id={first}",
             f"an assessment of the superseded episode id={sid} (administration {adm}) that "
             "is none of the assessments its removal removed (its columns do not hash to any "
             "of their sealed digests): the history changed outside "
             "--retry-measurement-failures")]
    for mode in ("full", "hash-only"):
        assert texts(verify_store(root, mode=mode)) == want, mode
    assert texts(verify_store(root, since=verified.resume)) == want
