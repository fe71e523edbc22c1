"""What `agm archive audit` keeps from its one read of each episode blob, and the replays it
shares: an episode whose replay inputs were all replayed before (a deterministic agent's
repeats) gets that replay's result, the same as running it again; edited events never share.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.archive import load_archive, recovery
from agentmetrology.archive.importers.agm_store import decode_blob, events_fingerprint
from agentmetrology.archive.model import ArchiveEpisode, ArchiveEvent, actor_counts, count_actors
from agentmetrology.archive.recovery import Replayed, replay_episode
from agentmetrology.records.canonical import decode_json
from archive.agm_fixtures import build_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("agm-memo") / "store")


def _twin(ep: ArchiveEpisode) -> ArchiveEpisode:
    """The same actions recorded under another target and repeat (what a repeat records)."""
    key = {**ep.meta["key"], "target": "twin", "repeat": 7}
    return dataclasses.replace(ep, episode_id=ep.episode_id + "#twin", model="twin",
                               meta={**ep.meta, "key": key})


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = recovery.run_episode

    def run(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(recovery, "run_episode", run)
    return calls


def _graded_l2(store: Path) -> ArchiveEpisode:
    return next(e for e in load_archive(store).episodes
                if e.grade is not None and e.scaffold == "L2" and e.model == "rule")


def test_a_replay_of_the_same_inputs_runs_once(store: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    ep = _graded_l2(store)
    twin = _twin(ep)
    alone = replay_episode(twin)  # no memo: run as always
    calls = _counted(monkeypatch)
    memo: dict[str, Replayed] = {}
    first, second = replay_episode(ep, memo), replay_episode(twin, memo)
    assert len(calls) == 1 and len(memo) == 1
    assert first == second == alone and first.matches_record and first.grade is not None
    assert second.grade is not first.grade  # each episode owns the grade it is given


def test_edited_events_are_replayed_not_shared(store: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    ep = _graded_l2(store)
    twin = _twin(ep)
    twin.events = type(ep.events)(*_parts(ep.events))  # a list of its own, then edited
    twin.events[0] = twin.events[0]
    assert twin.events.replay_fingerprint is None  # type: ignore[attr-defined]
    calls = _counted(monkeypatch)
    memo: dict[str, Replayed] = {}
    replay_episode(ep, memo)
    replay_episode(twin, memo)
    assert len(calls) == 2


def _parts(events: Any) -> tuple[Any, ...]:
    """The constructor arguments of a StoredEvents like `events` (blobs, digest, the events)."""
    return (events._blobs, events._digest, list(events),
            events.replay_fingerprint)


def test_actor_counts_kept_from_the_import_are_the_walked_ones(store: Path) -> None:
    a = load_archive(store)
    recorded = [e for e in a.episodes if e.events]
    assert recorded
    for e in recorded:
        assert actor_counts(e.events) == count_actors(list(e.events))
    e = recorded[0]
    i = next(i for i, ev in enumerate(e.events) if ev.actor == "agent")
    e.events[i] = dataclasses.replace(e.events[i], actor="grader")  # an edit is counted
    assert actor_counts(e.events)["grader"] == count_actors(list(e.events))["grader"] >= 1


def _ev(args: dict[str, Any]) -> ArchiveEvent:
    return ArchiveEvent(seq=0, kind="tool_call", name="fetch_page", args=args, actor="agent")


def test_the_fingerprint_tells_values_and_types_apart() -> None:
    blob = b'{"events": []}'
    one = events_fingerprint([_ev({"page": 1})], blob)
    assert one == events_fingerprint([_ev({"page": 1})], blob)
    others = [events_fingerprint([_ev(a)], blob)
              for a in ({"page": 1.0}, {"page": True}, {"page": "1"}, {"page": None})]
    assert one is not None and len({one, *others}) == 5


@pytest.mark.parametrize("text", [b'{"x": {"$float": "nan"}}', b"NaN", b"-Infinity"])
def test_no_fingerprint_when_the_blob_may_hold_a_non_finite_float(text: bytes) -> None:
    assert events_fingerprint([_ev({"page": None})], text) is None


@pytest.mark.parametrize("blob", [
    b'{"events":[{"args":{"page":1},"result":[1.5,-0.0,2.5e-7,true,null]}],"n":12345678901234567890123}',
    b'{"x":{"$float":"nan"},"y":{"$literal":{"$float":"inf"}}}', b'{"x":NaN}', b'[1e400]',
    b'"\\ud800"', b'"\\u0024float"', '{"t":"日本"}'.encode(), b'{"a":1,"a":2}'])
def test_a_blob_decodes_as_decode_json_decodes_it(blob: bytes) -> None:
    want, got = decode_json(blob), decode_blob(blob)
    assert repr(got) == repr(want)  # types too (1 is not 1.0), and NaN compared by its text


def test_a_broken_blob_raises_as_decode_json_does() -> None:
    with pytest.raises(ValueError):
        decode_blob(b'{"events": [')
