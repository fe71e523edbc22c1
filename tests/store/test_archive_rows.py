"""The streamed read of a campaign's administrations gives, key for key, the per-key reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.store import EvidenceStore
from agentmetrology.store.archive_rows import assessment_body, planned_episodes
from archive.agm_fixtures import RECORDED, build_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("agm-rows") / "store", planned_only="unrun")


def test_the_streamed_rows_are_the_per_key_reads(store: Path) -> None:
    with EvidenceStore.open_readonly(store, scrub_env=False) as st:
        seen = recorded = several = 0
        for campaign in st.campaigns():
            planned = list(planned_episodes(st, campaign))
            assert [p.key for p in planned] == st.reader.administration_keys(campaign)
            for p in planned:
                sealed = st.ledger.binding(p.key)
                assert sealed is not None and p.binding == sealed[0]
                assert p.episode == st.episode(p.key)
                recorded += p.episode is not None
                several += p.episode is not None and len(p.episode["assessments"]) > 1
                seen += 1
    assert recorded == RECORDED and seen > RECORDED  # the unrun campaign is planned only
    assert several == RECORDED  # every episode has more than one assessment to merge


def test_records_left_as_stored_decode_to_the_same_bodies(store: Path) -> None:
    """`bodies=False` (the import's read) leaves each assessment's record as stored; decoded
    with `assessment_body` it is the record the default read gives."""
    with EvidenceStore.open_readonly(store, scrub_env=False) as st:
        for campaign in st.campaigns():
            decoded = list(planned_episodes(st, campaign))
            stored = list(planned_episodes(st, campaign, bodies=False))
            assert [p.key for p in stored] == [p.key for p in decoded]
            for d, s in zip(decoded, stored, strict=True):
                if d.episode is None:
                    assert s.episode is None
                    continue
                assert s.episode is not None
                for a, b in zip(d.episode["assessments"], s.episode["assessments"], strict=True):
                    assert isinstance(b["assessment"], str)
                    assert assessment_body(b["assessment"]) == a["assessment"] is not None
                    assert {**b, "assessment": a["assessment"]} == a
