"""An `agm` store is audited without holding every episode's events: same audit, bounded memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.archive import audit_archive, load_archive
from agentmetrology.archive.importers.agm_store import StoredEvents
from agentmetrology.archive.recovery import recover_grades
from agentmetrology.records.canonical import canonical_json
from agentmetrology.store import EvidenceStore
from archive.agm_fixtures import RECORDED, build_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("stream") / "s", name="stream")


def test_events_are_read_from_the_blob_not_kept(store: Path) -> None:
    archive = load_archive(store, "agm")
    recorded = [e for e in archive.episodes if e.reason != "never_ran"]
    assert len(recorded) == RECORDED
    with EvidenceStore.open(store, create=False) as st:
        for ep in recorded:
            assert isinstance(ep.events, StoredEvents)
            assert not hasattr(ep.events, "__dict__")  # slots only: digest, store, length
            plain = st.load_episode(ep.episode_id and _key(ep))
            names = [e["name"] for e in plain["events"]]
            assert len(ep.events) == len(names) and [e.name for e in ep.events] == names
            assert ep.events[0].seq == plain["events"][0]["seq"]
            assert "submission" not in ep.meta  # the payload stays in the store


def _key(ep: object) -> object:
    from agentmetrology.records.episode import EpisodeKey
    return EpisodeKey(**ep.meta["key"])  # type: ignore[attr-defined]


def test_the_audit_is_the_one_computed_with_every_event_in_memory(store: Path) -> None:
    streamed = load_archive(store, "agm")
    held = load_archive(store, "agm")
    for ep in held.episodes:
        ep.events = list(ep.events)  # the old importer's in-memory lists
    recover_grades(streamed)
    recover_grades(held)
    assert canonical_json(audit_archive(streamed)) == canonical_json(audit_archive(held))
    assert streamed.recovery == held.recovery


def test_an_edit_of_the_events_is_held(store: Path) -> None:
    ep = next(e for e in load_archive(store, "agm").episodes if e.events)
    n = len(ep.events)
    first = ep.events[0]
    del ep.events[0]
    assert len(ep.events) == n - 1 and ep.events[0] != first
    ep.events.insert(0, first)
    assert len(ep.events) == n and ep.events[0] == first
