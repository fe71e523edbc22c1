"""The store's reader API on a small real store: named questions, plain records, typed errors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agentmetrology.records import BillableAttempt, EpisodeKey
from agentmetrology.records.errors import UserError
from agentmetrology.store import Binding, EvidenceStore
from agentmetrology.store.errors import StoreError, reading
from agentmetrology.store.ledger_reader import RecordedBinding, chain_heads
from agentmetrology.store.reader import StoreReader
from agentmetrology.store.reader_queries import EpisodeFilter
from agentmetrology.store.verify import NotAStoreError
from support.stores import VERSIONS, episode_key, make_episode


def _bindings(campaign: str, n: int, spec: str = "a" * 64, gt: str = "1.0.0") -> list[Binding]:
    # The last administration names another environment, as a plug-in's campaign would.
    versions = {**VERSIONS, "ground_truth_f1": gt}
    return [Binding(episode_key(i, campaign), i, spec, "b" * 64, versions,
                    {"environment": "toyenv"} if i == n - 1 else {}) for i in range(n)]


def _record(st: EvidenceStore, campaign: str, seeds: list[int], version: str = "1.0.0") -> None:
    adm = {a.key: a for a in st.pending(campaign)}
    for seed in seeds:
        k = episode_key(seed, campaign)
        st.record_episode(st.start_attempt(adm[k], None, "inline"),
                          *make_episode(k, version=version))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A store of two campaigns registered c2 first, episodes recorded out of plan order."""
    root = tmp_path / "s"
    with EvidenceStore.open(root, scrub_env=False) as st:
        st.register_campaign("c2", "q" * 64, {"name": "c2"}, _bindings("c2", 2, "c" * 64, "2.0.0"))
        st.register_campaign("c1", "p" * 64, {"name": "c1"}, _bindings("c1", 4))
        _record(st, "c2", [1, 0], version="2.0.0")
        _record(st, "c1", [3, 0, 2])
        adm = {a.key: a for a in st.pending("c1")}
        failed = st.start_attempt(adm[episode_key(1, "c1")], None, "inline")
        st.record_billable(failed, BillableAttempt("x", "fake", "m", "r", 5, None, None, None,
                                                   1.0, "error"))
        st.fail_attempt(failed, "worker crashed")
    return root


def test_administration_keys_are_in_plan_order(root: Path) -> None:
    with EvidenceStore.open_readonly(root, scrub_env=False) as st:
        assert st.reader.administration_keys("c1") == [episode_key(i, "c1") for i in range(4)]
        assert st.reader.administration_keys("nope") == []


def test_recorded_bindings_in_campaign_and_plan_order(root: Path) -> None:
    with EvidenceStore.open_readonly(root, scrub_env=False) as st:
        recorded = st.reader.recorded_bindings()
    assert [r.key for r in recorded] == [
        episode_key(0, "c1"), episode_key(2, "c1"), episode_key(3, "c1"), episode_key(0, "c2"),
        episode_key(1, "c2")]
    # the fixture's comtrade bindings name no environment, as an older store's: the store hands
    # them up as "" and the registry above reads them as its default
    assert [r.environment for r in recorded] == ["", "", "toyenv", "", "toyenv"]
    assert RecordedBinding(episode_key(0), None).environment == ""


def test_distinct_task_specs_and_assessment_versions(root: Path) -> None:
    with EvidenceStore.open_readonly(root, scrub_env=False) as st:
        specs = st.reader.task_spec_digests()
        versions = st.reader.assessment_versions()
    assert sorted(specs) == [("c1", "t1", "a" * 64), ("c2", "t1", "c" * 64)]
    assert sorted(versions) == [("c1", "t1", "ground_truth_f1", "1.0.0"),
                                ("c1", "t1", "shape_judge", "1.0.0"),
                                ("c2", "t1", "ground_truth_f1", "2.0.0"),
                                ("c2", "t1", "shape_judge", "1.0.0")]


def test_chain_heads_grow_and_keep_their_sequence(root: Path, tmp_path: Path) -> None:
    before = chain_heads(root)
    assert len(set(before.values())) == len(before) > 0
    with EvidenceStore.open(root, create=False, write=True, scrub_env=False) as st:
        _record(st, "c1", [1])
    after = chain_heads(root)
    assert len(after) > len(before) and all(after[h] == s for h, s in before.items())
    with pytest.raises(NotAStoreError, match="not an evidence store"):
        chain_heads(tmp_path / "nowhere")


def test_episode_index_filters_pages_and_scores(root: Path) -> None:
    reader = StoreReader(root)
    rows, total = reader.episodes(EpisodeFilter(campaign="c1"), 2, 0)
    assert total == 4 and [r["seed"] for r in rows] == [0, 1]
    assert rows[0]["recorded"] == 1 and rows[0]["scores"]["ground_truth_f1"]["status"] == "PASS"
    assert rows[1]["recorded"] == 0 and rows[1]["scores"] == {} and rows[1]["attempts"] == 1
    pending, n = reader.episodes(EpisodeFilter(status="pending"), 50, 0)
    assert n == 1 and pending[0]["seed"] == 1
    assert reader.episodes(EpisodeFilter(verdict="FAIL"), 50, 0) == ([], 0)
    assert reader.choices()["campaign"] == ["c1", "c2"]


@pytest.mark.parametrize("f", [EpisodeFilter(), EpisodeFilter(campaign="c2"),
                               EpisodeFilter(seed=1), EpisodeFilter(verdict="PASS"),
                               EpisodeFilter(status="recorded"), EpisodeFilter(status="pending")])
@pytest.mark.parametrize(("limit", "offset"), [(2, 0), (2, 2), (50, 0), (3, 5)])
def test_episode_index_pages_as_the_joined_query_does(root: Path, f: EpisodeFilter, limit: int,
                                                      offset: int) -> None:
    """A filter on administrations alone is counted and paged without the episodes' join: the
    same rows, in the same order, and the same total as the joined query."""
    where, values = f.where()
    with sqlite3.connect(root / "ledger.sqlite") as c:
        join = "FROM administrations a LEFT JOIN episodes e ON e.administration = a.id"
        total = c.execute(f"SELECT COUNT(*) {join}{where}", values).fetchone()[0]
        ids = [r[0] for r in c.execute(f"SELECT a.id {join}{where} ORDER BY a.id LIMIT ? "
                                       "OFFSET ?", [*values, limit, offset])]
    rows, n = StoreReader(root).episodes(f, limit, offset)
    assert (n, [r["id"] for r in rows]) == (total, ids) and total > 0



@pytest.mark.parametrize("f", [EpisodeFilter(verdict="PASS"), EpisodeFilter(scorer="schema"),
                               EpisodeFilter(verdict="PASS", scorer="ground_truth_f1"),
                               EpisodeFilter(campaign="c1", verdict="FAIL")])
def test_a_verdict_filter_finds_what_a_per_row_exists_finds(root: Path, f: EpisodeFilter) -> None:
    """The verdict and scorer filters are answered from the assessments; the same ids as an
    EXISTS over each administration's assessments."""
    keys = {k: getattr(f, k) for k in ("campaign",) if getattr(f, k) is not None}
    conds = ["EXISTS (SELECT 1 FROM assessments s WHERE s.administration = a.id"
             + "".join(f" AND s.{c} = ?" for c, v in (("status", f.verdict),
                                                      ("scorer", f.scorer)) if v is not None)
             + ")", *(f"a.{k} = ?" for k in keys)]
    values = [v for v in (f.verdict, f.scorer) if v is not None] + list(keys.values())
    with sqlite3.connect(root / "ledger.sqlite") as c:
        want = [r[0] for r in c.execute("SELECT a.id FROM administrations a WHERE "
                                        + " AND ".join(conds) + " ORDER BY a.id", values)]
    rows, n = StoreReader(root).episodes(f, 50, 0)
    assert ([r["id"] for r in rows], n) == (want, len(want))


def test_one_administration_with_attempts_billing_and_assessments(root: Path) -> None:
    reader = StoreReader(root)
    data = reader.episode(episode_key(1, "c1"))
    assert data is not None and data["episode"] is None
    (attempt,) = data["attempts"]
    assert attempt["status"] == "failed" and [b["outcome"] for b in attempt["billable"]] == [
        "error"]
    done = reader.episode(episode_key(0, "c2"))
    assert done is not None and [a["scorer"] for a in done["assessments"]] == [
        "ground_truth_f1", "shape_judge"]
    assert done["assessments"][0]["record"]["scorer_version"] == "2.0.0"
    assert reader.blob_json(done["episode"]["episode_digest"])["seed"] == 0
    assert reader.episode(EpisodeKey("c1", "t1", "T3_duplicates", 9, "clean", "L2", 0)) is None


def test_summaries_count_progress_and_errors(root: Path) -> None:
    sums = {s["campaign"]: s for s in StoreReader(root).summaries()}
    assert [*sums] == ["c2", "c1"]  # oldest campaign first
    assert (sums["c1"]["planned"], sums["c1"]["done"], sums["c1"]["errored"]) == (4, 3, 1)
    assert sums["c2"]["complete"] and not sums["c1"]["complete"]


def test_a_corrupt_blob_is_a_store_error(root: Path) -> None:
    reader = StoreReader(root)
    data = reader.episode(episode_key(0, "c1"))
    assert data is not None
    digest = data["episode"]["episode_digest"]
    (root / "blobs" / digest[:2] / digest[2:]).write_bytes(b"{}")
    with pytest.raises(StoreError, match="is corrupt"):
        reader.blob(digest)


def test_an_unreadable_ledger_is_a_user_error_naming_the_store(tmp_path: Path) -> None:
    root = tmp_path / "bad"
    root.mkdir()
    (root / "ledger.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError) as info:
        EvidenceStore.open_readonly(root, scrub_env=False)
    assert isinstance(info.value, UserError) and info.value.root == root
    assert str(info.value) == (f"{root}: ledger.sqlite is not a readable ledger "
                               f"({info.value.detail}); give another store, or restore this "
                               "one from a copy")
    assert "not a database" in info.value.detail
    with pytest.raises(StoreError, match=r"^cannot read the ledger"):
        StoreReader(root).check()


def test_a_failed_write_is_worded_as_one(tmp_path: Path) -> None:
    with (pytest.raises(StoreError, match=r"cannot be written \(disk I/O error\); check"),
          reading(tmp_path, write=True)):
        raise sqlite3.OperationalError("disk I/O error")
    with reading(tmp_path):
        pass  # nothing raised, nothing turned into an error


def test_filter_choices_by_index_seeks_are_the_distinct_values(root: Path) -> None:
    """Each field's choices walked through its index equal SELECT DISTINCT's, and a store
    without the writer's indexes is answered by that DISTINCT."""
    from agentmetrology.store.reader_choices import WALKS, distinct_values

    def plain(c: sqlite3.Connection, field: str) -> list[object]:
        table = WALKS[field][0]
        return [r[0] for r in c.execute(f"SELECT DISTINCT {field} FROM {table} ORDER BY 1")]

    with sqlite3.connect(root / "ledger.sqlite") as c:
        walked = {f: distinct_values(c, f) for f in WALKS}
        assert walked == {f: plain(c, f) for f in WALKS}
        assert walked["campaign"] == ["c1", "c2"] and walked["scorer"]
        for index in ("administrations_cells", "assessments_scorers"):
            c.execute(f"DROP INDEX {index}")
        assert {f: distinct_values(c, f) for f in WALKS} == walked
    assert StoreReader(root).choices() == walked
