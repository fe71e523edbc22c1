"""Re-grading across versions (docs/archive.md), hand-derived: the rank cohort per unit, rank
reversals and ties among common units, crossed cells with nothing graded, and the interaction's
float tolerance."""

from __future__ import annotations

from agentmetrology.archive.model import Archive, ArchiveEpisode, StoredGrade
from agentmetrology.archive.versions import (
    compare_archives,
    crossed_cells,
    crossed_decomposition,
    rank_reversals,
)

P, F = StoredGrade(1.0, True), StoredGrade(0.0, False)


def _archive(name: str, rows: list[tuple[str, str, str, int, StoredGrade | None]]) -> Archive:
    eps = [ArchiveEpisode(f"{t}-{m}-{s}-{k}", t, m, scaffold=s, trial=k, grade=g)
           for t, m, s, k, g in rows]
    return Archive(name, "jsonl", episodes=eps)


# Units (model / scaffold): m / A graded on (t1,0) (t1,1) (t2,0); m / B on (t1,0) (t1,1) only;
# n / A like m / A; solo (no scaffold) on (t1,0) (t1,1); ghost graded in the old archive only.
# The cohort graded in both for every unit is {(t1,0), (t1,1)}: 2 episodes per unit.
OLD = _archive("old", [
    ("t1", "m", "A", 0, P), ("t1", "m", "A", 1, P), ("t2", "m", "A", 0, P),
    ("t1", "m", "B", 0, P), ("t1", "m", "B", 1, F),
    ("t1", "n", "A", 0, F), ("t1", "n", "A", 1, F), ("t2", "n", "A", 0, P),
    ("t1", "solo", "", 0, P), ("t1", "solo", "", 1, P),
    ("t1", "ghost", "", 0, P)])
NEW = _archive("new", [
    ("t1", "m", "A", 0, F), ("t1", "m", "A", 1, P), ("t2", "m", "A", 0, P),
    ("t1", "m", "B", 0, P), ("t1", "m", "B", 1, P),
    ("t1", "n", "A", 0, P), ("t1", "n", "A", 1, F), ("t2", "n", "A", 0, F),
    ("t1", "solo", "", 0, F), ("t1", "solo", "", 1, F)])


def test_rank_cohort_is_per_model_and_scaffold_unit() -> None:
    rank = compare_archives(OLD, NEW)["rank"]
    # Scaffolds of one model are separate units (m / B limits the cohort to t1), trials are not
    # units, a unit graded in one archive only has no cohort; no scaffold: the model alone.
    assert rank["cohort_episodes_per_unit"] == 2
    assert rank["scores_old"] == {"m / A": 1.0, "m / B": 0.5, "n / A": 0.0, "solo": 1.0}
    assert rank["scores_new"] == {"m / A": 0.5, "m / B": 1.0, "n / A": 0.5, "solo": 0.0}
    # pairs: (mA,mB) rev; (mA,nA) d_new 0: tie; (mA,solo) d_old 0: tie; (mB,nA) same order;
    # (mB,solo) rev; (nA,solo) rev
    assert (rank["units"], rank["pairs"], rank["strict_reversals"], rank["ties"]) == (4, 6, 3, 2)


def test_units_sharing_a_scaffold_are_not_merged() -> None:
    old = _archive("old", [("a", "m", "S", 0, P), ("b", "m", "S", 0, P),
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
    ungraded = _archive("u", [("t1", "m", "", 0, None)])
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
    a = _archive("a", [("t1", "x / y", "", 0, P), ("t1", "x", "y", 0, P),
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
