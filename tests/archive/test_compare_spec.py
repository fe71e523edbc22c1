"""`agm archive compare` (compare.json) pinned on two hand-built archives (docs/archive.md:
transitions n00/n01/n10/n11, net = (n01 − n10)/N, flip fraction, rank reversals on a common
cohort, crossed evaluator × data cells)."""

from __future__ import annotations

from fractions import Fraction

from agentmetrology.archive.model import Archive, ArchiveEpisode, StoredGrade
from agentmetrology.archive.versions import compare_archives

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
