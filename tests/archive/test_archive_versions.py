"""Re-grading across versions: crossed decomposition, transitions, rank reversals, replay gate."""

from __future__ import annotations

import pytest

from agentmetrology.archive.coverage import coverage
from agentmetrology.archive.model import Archive, ArchiveEpisode, ArchiveEvent, ReplaySpec
from agentmetrology.archive.model import StoredGrade as G
from agentmetrology.archive.replay import apply_gate, check_replay, tool_namespace
from agentmetrology.archive.versions import (
    compare_archives,
    crossed_decomposition,
    rank_reversals,
    transitions,
)


def test_crossed_decomposition_both_orders_when_interaction() -> None:
    s = {("v0", "g0"): 0.5, ("v1", "g0"): 0.6, ("v0", "g1"): 0.55, ("v1", "g1"): 0.7}
    d = crossed_decomposition(s, "v0", "v1", "g0", "g1")
    assert d["total"] == pytest.approx(0.2)
    assert d["interaction"] == pytest.approx(0.05)
    ef, df = d["orders"]["evaluator_first"], d["orders"]["data_first"]
    assert (ef["evaluator"], ef["data"]) == (pytest.approx(0.1), pytest.approx(0.1))
    assert (df["data"], df["evaluator"]) == (pytest.approx(0.05), pytest.approx(0.15))
    for order in (ef, df):
        assert order["evaluator"] + order["data"] == pytest.approx(d["total"])


def test_crossed_without_interaction_reports_one_order() -> None:
    s = {("a", "x"): 0.5, ("b", "x"): 0.75, ("a", "y"): 0.25, ("b", "y"): 0.5}
    d = crossed_decomposition(s, "a", "b", "x", "y")
    assert d["interaction"] == 0 and list(d["orders"]) == ["evaluator_first"]


def test_incompatible_cell_stays_visible_as_invalid() -> None:
    s = {("v0", "g0"): 0.5, ("v1", "g0"): 0.6, ("v0", "g1"): None, ("v1", "g1"): 0.7}
    d = crossed_decomposition(s, "v0", "v1", "g0", "g1")
    assert d["invalid_cells"] == ["v0|g1"] and d["interaction"] is None
    assert d["orders"]["data_first"]["valid"] is False
    assert len(d["cells"]) == 4


def test_transitions_reference_flip_fraction() -> None:
    old = {(str(i), "m", "", 0): i < 400 for i in range(800)}
    new = dict(old)
    for i in range(40):  # 40 pass -> fail
        new[(str(i), "m", "", 0)] = False
    for i in range(400, 437):  # 37 fail -> pass
        new[(str(i), "m", "", 0)] = True
    t = transitions(old, new)
    assert (t["n10"], t["n01"], t["flips"], t["n"]) == (40, 37, 77, 800)
    assert t["flip_fraction"] == 0.09625
    assert t["net_count"] == -3 and t["net"] == -3 / 800  # net is a fraction (docs/archive.md)


@pytest.mark.parametrize(("n", "pairs"), [(27, 351), (17, 136)])
def test_pair_counts(n: int, pairs: int) -> None:
    s = {f"u{i}": float(i) for i in range(n)}
    r = rank_reversals(s, s)
    assert r["pairs"] == pairs and r["strict_reversals"] == 0


def test_strict_reversals_and_ties() -> None:
    s0 = {"a": 0.5, "b": 0.4, "c": 0.4}
    s1 = {"a": 0.3, "b": 0.6, "c": 0.2}
    r = rank_reversals(s0, s1)
    assert r["strict_reversals"] == 1  # a/b reverse; a/c keep order; b/c tied before
    assert r["ties"] == 1


def test_tool_namespace() -> None:
    assert tool_namespace("airline.book") == "airline"
    assert tool_namespace("mail__send") == "mail"
    assert tool_namespace("search") == "search"


def test_replay_gate() -> None:
    ok = check_replay(ReplaySpec("stubbed_model", ("db",), ("db", "mail")), ["mail.send"])
    assert ok.valid
    missing = check_replay(ReplaySpec("stubbed_model", (), ("db",)), ["mail.send"])
    assert not missing.valid and missing.missing == ("mail",)
    assert not check_replay(ReplaySpec(None), []).valid
    assert not check_replay(ReplaySpec("teleport", (), ()), []).valid


def test_gate_marks_invalid_replay_not_failure() -> None:
    ep = ArchiveEpisode("e", "t", "m", grade=G(0.0, False),
                        events=[ArchiveEvent(0, "tool_call", "mail.send", {})],
                        replay=ReplaySpec("verbatim", (), ("db",)))
    apply_gate(ep)
    assert ep.outcome == "invalid_replay" and ep.reason == "invalid_replay"
    cov = coverage(Archive("x", "jsonl", episodes=[ep]))["overall"]
    assert cov["counts"]["fail"] == 0 and cov["counts"]["invalid_replay"] == 1


def _archive(name: str, grades: dict[tuple[str, str], list[bool | None]]) -> Archive:
    eps = []
    for (model, task), trials in grades.items():
        for trial, g in enumerate(trials):
            eps.append(ArchiveEpisode(f"{model}/{task}/{trial}", task, model, trial=trial,
                                      grade=None if g is None else G(float(g), g),
                                      reason="unscored" if g is None else None))
    return Archive(name, "jsonl", episodes=eps)


def test_compare_archives() -> None:
    old = _archive("old", {("A", "t1"): [True, True], ("A", "t2"): [False, True],
                           ("B", "t1"): [False, False], ("B", "t2"): [False, None]})
    new = _archive("new", {("A", "t1"): [False, False], ("A", "t2"): [False, False],
                           ("B", "t1"): [True, True], ("B", "t2"): [True, True]})
    doc = compare_archives(old, new)
    assert doc["episodes_in_both"] == 8 and doc["not_comparable"] == 1
    t = doc["transitions"]
    assert (t["n10"], t["n01"], t["n"]) == (3, 3, 7)
    rank = doc["rank"]
    assert rank["cohort_episodes_per_unit"] == 3 and rank["strict_reversals"] == 1
    assert "crossed" not in doc
    crossed = compare_archives(old, new, [old, None])
    assert crossed["crossed"]["invalid_cells"] == ["v0|g1"]


def test_crossed_cells_never_count_invalid_or_ungraded_as_failures() -> None:
    old = _archive("old", {("A", "t"): [True, True, False, False]})
    new = _archive("new", {("A", "t"): [True, True, True, False]})
    v01 = _archive("v01", {("A", "t"): [True, True, True, False]})
    # every episode of the v1|g0 cell is ungraded (an invalid replay would be the same):
    # that cell cannot be computed, it is not a score of 0
    v10 = _archive("v10", {("A", "t"): [None, None, None, None]})
    crossed = compare_archives(old, new, [v10, v01])["crossed"]
    assert crossed["invalid_cells"] == ["v1|g0"]
    assert crossed["interaction"] is None
    assert crossed["cell_counts"]["v1|g0"]["ungraded"] == 4
    # half graded: the decomposition is computed on the cohort graded in all four cells
    v10 = _archive("v10", {("A", "t"): [True, None, False, None]})
    crossed = compare_archives(old, new, [v10, v01])["crossed"]
    assert crossed["cohort_episodes"] == 2 and crossed["invalid_cells"] == []
    cells = {(c["evaluator"], c["data"]): c["score"] for c in crossed["cells"]}
    assert cells[("v0", "g0")] == 0.5 and cells[("v1", "g1")] == 1.0  # trials 0 and 2
