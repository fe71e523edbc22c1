"""Action provenance: order-preserving alignment, candidates, ambiguity; synthetic leaks."""

from __future__ import annotations

import pytest

from agentmetrology.archive.model import Archive, ArchiveEpisode, ArchiveEvent, ExecutedCall
from agentmetrology.archive.provenance import (
    align_calls,
    call_key,
    episode_alignment,
    provenance_section,
    strip_candidates,
)
from agentmetrology.archive.synthetic import synthetic_archive
from agentmetrology.records.canonical import canonical_json

A, B, C = call_key("a", {"x": 1}), call_key("b", {"x": 1}), call_key("c", {"x": 1})
GOLD = call_key("a", {"x": 2})


def test_key_is_canonical_in_argument_order() -> None:
    assert call_key("t", {"a": 1, "b": 2}) == call_key("t", {"b": 2, "a": 1})
    assert call_key("t", {"a": 1}) != call_key("t", {"a": 1.5})


def test_inserted_action_is_a_clear_candidate() -> None:
    al = align_calls([A, B, C], [A, GOLD, B, C])
    assert al.candidates == [1] and not al.ambiguous_candidates
    assert len(al.pairs) == 3 and al.ambiguous_pairs == 0


def test_repeated_identical_actions_are_ambiguous() -> None:
    al = align_calls([A, B], [A, A, B])
    assert al.candidates == [] and al.ambiguous_candidates == [1]
    assert al.ambiguous_pairs == 1
    both = align_calls([A, A], [A, A])
    assert both.ambiguous_pairs == 2 and not both.candidates


def test_order_matters_and_missing_calls_reported() -> None:
    al = align_calls([A, B], [B, A])
    assert len(al.pairs) == 1 and len(al.unmatched_executed) == 1
    assert align_calls([A, B, C], [A, C]).unmatched_executed == [1]


def test_strip_candidates_removes_only_clear_ones() -> None:
    events = [ArchiveEvent(i, "tool_call", n, {"x": x}) for i, (n, x) in
              enumerate([("a", 1), ("a", 2), ("b", 1)])]
    ep = ArchiveEpisode("e", "t", "m", events=events,
                        executed_calls=[ExecutedCall("a", {"x": 1}), ExecutedCall("b", {"x": 1})])
    al = episode_alignment(ep)
    assert al is not None
    assert [e.args for e in strip_candidates(ep.events, al)] == [{"x": 1}, {"x": 1}]


def test_not_applicable_without_raw_log() -> None:
    ep = ArchiveEpisode("e", "t", "m", events=[ArchiveEvent(0, "tool_call", "a", {},
                                                            actor="grader")])
    p = provenance_section(Archive("x", "taubench", episodes=[ep]))
    assert p["applicable"] is False and p["grader_labelled_events"] == 1


@pytest.mark.parametrize("seed", [0, 5, 42])
def test_synthetic_leaks_recovered_exactly(seed: int) -> None:
    archive, truth = synthetic_archive(seed, leak_rate=0.4)
    p = provenance_section(archive)
    assert p["candidates"] == truth.leaks
    assert p["ambiguous_candidates"] == truth.ambiguous_leaks
    assert p["unmatched_executed"] == 0
    flagged = {e["episode_id"] for e in p["episodes"]}
    assert flagged == truth.leaked_episodes
    assert truth.leaks > 0 and truth.ambiguous_leaks > 0


def test_synthetic_is_deterministic() -> None:
    a1, t1 = synthetic_archive(9)
    a2, t2 = synthetic_archive(9)
    assert canonical_json(a1.episodes) == canonical_json(a2.episodes)
    assert canonical_json(a1.spans) == canonical_json(a2.spans)
    assert t1.leaks == t2.leaks and t1.ungraded == t2.ungraded
    a3, _ = synthetic_archive(10)
    assert canonical_json(a3.spans) != canonical_json(a1.spans)


def test_a_listed_candidate_names_its_cell_as_coverage_does() -> None:
    # Model "x / y" alone and model "x" with scaffold "y" share the plain label "x / y"; the
    # listing names the cells as the coverage table labels them apart.
    def ep(eid: str, model: str, scaffold: str) -> ArchiveEpisode:
        events = [ArchiveEvent(i, "tool_call", n, {"x": x}) for i, (n, x) in
                  enumerate([("a", 1), ("a", 2), ("b", 1)])]
        return ArchiveEpisode(eid, "t", model, scaffold=scaffold, events=events,
                              executed_calls=[ExecutedCall("a", {"x": 1}),
                                              ExecutedCall("b", {"x": 1})])
    p = provenance_section(Archive("x", "taubench", episodes=[ep("e1", "x / y", ""),
                                                              ep("e2", "x", "y")]))
    assert [(c["episode_id"], c["cell"]) for c in p["episodes"]] == [
        ("e1", '["x / y", ""]'), ("e2", '["x", "y"]')]
