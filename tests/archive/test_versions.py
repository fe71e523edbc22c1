"""Re-grading across versions: crossed decomposition, transitions, rank reversals, replay gate.

Re-grading across versions (docs/archive.md), hand-derived: the rank cohort per unit, rank
reversals and ties among common units, crossed cells with nothing graded, and the interaction's
float tolerance.

`agm archive compare` (compare.json) pinned on two hand-built archives (docs/archive.md:
transitions n00/n01/n10/n11, net = (n01 − n10)/N, flip fraction, rank reversals on a common
cohort, crossed evaluator × data cells)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from agentmetrology.archive.coverage import coverage
from agentmetrology.archive.model import (
    Archive,
    ArchiveEpisode,
    ArchiveEvent,
    ReplaySpec,
    StoredGrade,
)
from agentmetrology.archive.model import StoredGrade as G
from agentmetrology.archive.replay import apply_gate, check_replay, tool_namespace
from agentmetrology.archive.versions import (
    compare_archives,
    crossed_cells,
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


P, F = StoredGrade(1.0, True), StoredGrade(0.0, False)


def _units_archive(name: str, rows: list[tuple[str, str, str, int, StoredGrade | None]]) -> Archive:
    eps = [ArchiveEpisode(f"{t}-{m}-{s}-{k}", t, m, scaffold=s, trial=k, grade=g)
           for t, m, s, k, g in rows]
    return Archive(name, "jsonl", episodes=eps)


# Units (model / scaffold): m / A graded on (t1,0) (t1,1) (t2,0); m / B on (t1,0) (t1,1) only;
# n / A like m / A; solo (no scaffold) on (t1,0) (t1,1); ghost graded in the old archive only.
# The cohort graded in both for every unit is {(t1,0), (t1,1)}: 2 episodes per unit.
UNITS_OLD = _units_archive("old", [
    ("t1", "m", "A", 0, P), ("t1", "m", "A", 1, P), ("t2", "m", "A", 0, P),
    ("t1", "m", "B", 0, P), ("t1", "m", "B", 1, F),
    ("t1", "n", "A", 0, F), ("t1", "n", "A", 1, F), ("t2", "n", "A", 0, P),
    ("t1", "solo", "", 0, P), ("t1", "solo", "", 1, P),
    ("t1", "ghost", "", 0, P)])
UNITS_NEW = _units_archive("new", [
    ("t1", "m", "A", 0, F), ("t1", "m", "A", 1, P), ("t2", "m", "A", 0, P),
    ("t1", "m", "B", 0, P), ("t1", "m", "B", 1, P),
    ("t1", "n", "A", 0, P), ("t1", "n", "A", 1, F), ("t2", "n", "A", 0, F),
    ("t1", "solo", "", 0, F), ("t1", "solo", "", 1, F)])


def test_rank_cohort_is_per_model_and_scaffold_unit() -> None:
    rank = compare_archives(UNITS_OLD, UNITS_NEW)["rank"]
    # Scaffolds of one model are separate units (m / B limits the cohort to t1), trials are not
    # units, a unit graded in one archive only has no cohort; no scaffold: the model alone.
    assert rank["cohort_episodes_per_unit"] == 2
    assert rank["scores_old"] == {"m / A": 1.0, "m / B": 0.5, "n / A": 0.0, "solo": 1.0}
    assert rank["scores_new"] == {"m / A": 0.5, "m / B": 1.0, "n / A": 0.5, "solo": 0.0}
    # pairs: (mA,mB) rev; (mA,nA) d_new 0: tie; (mA,solo) d_old 0: tie; (mB,nA) same order;
    # (mB,solo) rev; (nA,solo) rev
    assert (rank["units"], rank["pairs"], rank["strict_reversals"], rank["ties"]) == (4, 6, 3, 2)


def test_units_sharing_a_scaffold_are_not_merged() -> None:
    old = _units_archive("old", [("a", "m", "S", 0, P), ("b", "m", "S", 0, P),
                           ("a", "n", "S", 0, P), ("b", "n", "S", 0, F), ("c", "n", "S", 0, P),
                           ("a", "n", "T", 0, P), ("b", "n", "T", 0, P), ("c", "n", "T", 0, F)])
    rank = compare_archives(old, old)["rank"]
    # m / S lacks c, so the cohort is {a, b}, not the union over scaffold S
    assert rank["cohort_episodes_per_unit"] == 2
    assert rank["scores_old"] == {"m / S": 1.0, "n / S": 0.5, "n / T": 1.0}


def test_rank_reversals_lists_pairs_and_counts_ties() -> None:
    s0 = {"a": 1.0, "c": 3.0, "d": 3.0, "e": 3.0, "old_only": 9.0}
    s1 = {"a": 3.0, "c": 1.0, "d": 5.0, "e": 1.0, "new_only": 0.0}
    # (a,c) and (a,e) reverse; (a,d) keeps its order; (c,d), (c,e), (d,e) tie in the old scores
    assert rank_reversals(s0, s1) == {
        "units": 4, "pairs": 6, "strict_reversals": 2, "ties": 3,
        "reversed_pairs": [{"a": "a", "b": "c", "d_old": -2.0, "d_new": 2.0},
                           {"a": "a", "b": "e", "d_old": -2.0, "d_new": 2.0}]}


def test_reversed_pairs_are_capped_at_200() -> None:
    units = [f"u{i:02d}" for i in range(21)]
    res = rank_reversals({u: float(i) for i, u in enumerate(units)},
                         {u: float(-i) for i, u in enumerate(units)})
    assert (res["pairs"], res["strict_reversals"], len(res["reversed_pairs"])) == (210, 210, 200)
    assert res["reversed_pairs"][-1] == {"a": "u15", "b": "u20", "d_old": -5.0, "d_new": 5.0}


def test_crossed_cells_with_nothing_graded_are_invalid() -> None:
    ungraded = _units_archive("u", [("t1", "m", "", 0, None)])
    cells = {("v0", "g0"): None, ("v1", "g0"): ungraded}
    assert crossed_cells(cells) == ({("v0", "g0"): None, ("v1", "g0"): None}, 0)


def test_interaction_within_float_noise_reports_one_order() -> None:
    # I = s11 - s10 - s01 + s00 = 1e-12 exactly: float noise, so the split has one order
    def orders(s11: float) -> list[str]:
        scores = {("v0", "g0"): 0.0, ("v1", "g0"): 0.0, ("v0", "g1"): 0.0, ("v1", "g1"): s11}
        return list(crossed_decomposition(scores, "v0", "v1", "g0", "g1")["orders"])

    assert orders(1e-12) == ["evaluator_first"]
    assert orders(2e-12) == ["evaluator_first", "data_first"]


def test_cells_whose_plain_labels_coincide_are_not_merged() -> None:
    # Model "x / y" without a scaffold and model "x" with scaffold "y" share the plain label
    # "x / y"; merged, each (task, trial) would count twice and the pass rate would be 2.0.
    a = _units_archive("a", [("t1", "x / y", "", 0, P), ("t1", "x", "y", 0, P),
                       ("t1", "z", "", 0, F)])
    rank = compare_archives(a, a)["rank"]
    assert rank["cohort_episodes_per_unit"] == 1
    assert rank["scores_old"] == {'["x / y", ""]': 1.0, '["x", "y"]': 1.0, "z": 0.0}


def test_cell_labels_refuse_names_that_cannot_be_told_apart() -> None:
    import pytest

    from agentmetrology.archive.model import ArchiveFormatError, cell_labels
    assert cell_labels([("m", ""), ("m", "A")]) == {("m", ""): "m", ("m", "A"): "m / A"}
    # A model literally named like another pair's JSON label, colliding with it only after
    # the JSON fallback: refused with a message, never merged.
    with pytest.raises(ArchiveFormatError, match="same cell label"):
        cell_labels([("x / y", ""), ("x", "y"), ('["x", "y"]', "")])


PASS, FAIL = StoredGrade(1.0, True), StoredGrade(0.0, False)


def _ep(task: str, model: str, scaffold: str, grade: StoredGrade | None, trial: int = 0,
        invalid: str | None = None) -> ArchiveEpisode:
    return ArchiveEpisode(f"{task}-{model}-{trial}", task, model, scaffold=scaffold,
                          trial=trial, grade=grade, invalid_replay=invalid)


OLD = Archive("o", "jsonl", episodes=[
    _ep("t1", "A", "", PASS), _ep("t2", "A", "", FAIL), _ep("t1", "B", "s", PASS),
    _ep("t2", "B", "s", PASS), _ep("t3", "A", "", None), _ep("t9", "A", "", PASS),
    _ep("t7", "A", "", PASS, trial=1, invalid="no declared mode")])
NEW = Archive("n", "agm", episodes=[
    _ep("t1", "A", "", FAIL), _ep("t2", "A", "", PASS), _ep("t1", "B", "s", PASS),
    _ep("t2", "B", "s", FAIL), _ep("t3", "A", "", PASS), _ep("t8", "B", "s", FAIL)])


def test_compare_counts_transitions_and_ranks() -> None:
    doc = compare_archives(OLD, NEW)
    assert doc["old"] == {"source": "o", "format": "jsonl", "episodes": 7, "graded": 5,
                          "score_stored": float(Fraction(4, 7)), "score_graded": 0.8}
    assert doc["new"] == {"source": "n", "format": "agm", "episodes": 6, "graded": 6,
                          "score_stored": 0.5, "score_graded": 0.5}
    assert (doc["episodes_in_both"], doc["only_old"], doc["only_new"],
            doc["not_comparable"]) == (5, 2, 1, 1)
    # t1/A 1→0, t2/A 0→1, t1/B 1→1, t2/B 1→0 (t3/A is ungraded in the old archive)
    assert doc["transitions"] == {"n00": 0, "n01": 1, "n10": 2, "n11": 1, "n": 4,
                                  "net_count": -1, "flips": 3, "flip_fraction": 0.75,
                                  "net": -0.25}
    # cohort {t1, t2} × trial 0 for both units: A 0.5 → 0.5, B / s 1.0 → 0.5: a tie, no reversal
    assert doc["rank"] == {"cohort_episodes_per_unit": 2,
                           "scores_old": {"A": 0.5, "B / s": 1.0},
                           "scores_new": {"A": 0.5, "B / s": 0.5},
                           "units": 2, "pairs": 1, "strict_reversals": 0, "ties": 1,
                           "reversed_pairs": []}
    assert doc["warnings"] == [
        "2 episode(s) only in the old and 1 only in the new archive are not compared"]
    assert "crossed" not in doc


def test_crossed_cells_on_the_common_graded_cohort() -> None:
    crossed = compare_archives(OLD, NEW, crossed=[NEW, OLD])["crossed"]
    # cohort graded in every cell: t1/A, t2/A, t1/B, t2/B; old passes 3 of 4, new 2 of 4
    assert crossed["cells"] == [
        {"evaluator": "v0", "data": "g0", "score": 0.75, "valid": True},
        {"evaluator": "v1", "data": "g0", "score": 0.5, "valid": True},
        {"evaluator": "v0", "data": "g1", "score": 0.75, "valid": True},
        {"evaluator": "v1", "data": "g1", "score": 0.5, "valid": True}]
    assert (crossed["total"], crossed["interaction"], crossed["invalid_cells"]) == (
        -0.25, 0.0, [])
    assert crossed["orders"] == {"evaluator_first": {"evaluator": -0.25, "data": 0.0,
                                                     "valid": True}}
    assert crossed["cohort_episodes"] == 4
    old_counts = {"episodes": 7, "graded": 5, "invalid_replay": 1, "ungraded": 1}
    new_counts = {"episodes": 6, "graded": 6, "invalid_replay": 0, "ungraded": 0}
    assert crossed["cell_counts"] == {"v0|g0": old_counts, "v1|g1": new_counts,
                                      "v1|g0": new_counts, "v0|g1": old_counts}


def test_warnings_when_nothing_or_nothing_graded_is_shared() -> None:
    other = Archive("x", "jsonl", episodes=[_ep("z", "A", "", PASS)])
    doc = compare_archives(OLD, other)
    assert doc["warnings"] == [
        "the archives share no episode (same task, model, scaffold and trial): 7 old and 1 new "
        "episodes, nothing compared; are they runs of the same tasks?"]
    assert doc["transitions"]["flip_fraction"] is None and doc["transitions"]["net"] is None
    assert doc["rank"]["cohort_episodes_per_unit"] == 0
    ungraded = Archive("u", "jsonl", episodes=[_ep("t3", "A", "", None)])
    assert compare_archives(OLD, ungraded)["warnings"] == [
        "1 episode(s) are in both archives but none is graded in both: no transition can be "
        "counted",
        "6 episode(s) only in the old and 0 only in the new archive are not compared"]
    empty = compare_archives(Archive("e", "jsonl"), Archive("f", "jsonl"))
    assert empty["old"]["score_stored"] is None and empty["old"]["score_graded"] is None
