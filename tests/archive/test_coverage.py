"""Coverage arithmetic: the spec's reference values, exactly.

The coverage section pinned on a hand-counted archive (docs/archive.md, "coverage").

Two cells: "m" (6 planned: 3 pass, 1 fail, 1 ungraded with a grade recovered by replay, 1
invalid replay) and "m / s" (2 planned: 1 pass, 1 fail). Every number below is counted by hand:
graded-only score = passes / graded, stored score = passes / planned, bounds
[S_stored, S_stored + (1 − f)], and the pairwise difference bounds and tie threshold."""

from __future__ import annotations

from fractions import Fraction

import pytest

from agentmetrology.archive.coverage import (
    MAX_LISTED,
    Bounds,
    bounds_from_counts,
    cell_summary,
    coverage,
    difference_bounds,
    exact_mean,
    identification_bounds,
    pass_k_section,
    task_view,
    tie_threshold,
)
from agentmetrology.archive.model import REASONS, Archive, ArchiveEpisode, StoredGrade
from agentmetrology.archive.passk import pass_hat_k, pass_hat_k_fraction


def test_tie_threshold_reference() -> None:
    t = tie_threshold(n_a=100, p_a=30, u_a=50, n_b=100, p_b=43, u_b=2)
    assert (t.intercept, t.slope) == (0.26, 0.04)
    assert (t.at_qb0, t.at_qb1) == (0.26, 0.3)
    assert t.possible


def test_tie_threshold_impossible_and_fixed() -> None:
    assert not tie_threshold(100, 10, 5, 100, 90, 0).possible  # q_A* far above 1
    fixed = tie_threshold(100, 43, 0, 100, 40, 5)  # S_A fixed at 0.43 inside B's 0.40..0.45
    assert fixed.intercept is None and fixed.possible
    assert not tie_threshold(100, 50, 0, 100, 40, 5).possible


def test_identification_bounds_reference() -> None:
    assert bounds_from_counts(100, 30, 50) == (b := bounds_from_counts(100, 30, 50))
    assert (b.lower, b.upper) == (0.3, 0.8)  # stored 30% at f = 0.5 allows 30-80%
    b2 = bounds_from_counts(100, 43, 98)
    assert (b2.lower, b2.upper) == (0.43, 0.45)  # stored 43% at f = 0.98 allows 43-45%
    f = identification_bounds(0.3, 0.5)
    assert (f.lower, f.upper) == (0.3, 0.8)
    assert identification_bounds(0.43, 0.98).upper == pytest.approx(0.45)


def test_difference_bounds() -> None:
    d = difference_bounds(0.13, f_a=0.98, f_b=0.5)
    assert d.lower == pytest.approx(0.13 - 0.5)
    assert d.upper == pytest.approx(0.13 + 0.02)


def test_pass_hat_k_exact() -> None:
    counts = [(4, 4), (4, 2), (4, 0)]
    assert pass_hat_k_fraction(counts, 1) == Fraction(1, 2)
    assert pass_hat_k_fraction(counts, 2) == (1 + Fraction(1, 6)) / 3
    assert pass_hat_k(counts, 4) == pytest.approx(1 / 3)
    assert pass_hat_k(counts, 5) is None
    with pytest.raises(ValueError):
        pass_hat_k([(2, 3)], 1)


def _ep(i: int, model: str, grade: float | None, reason: str | None = None) -> ArchiveEpisode:
    g = None if grade is None else StoredGrade(grade, grade == 1.0)
    return ArchiveEpisode(episode_id=f"{model}/{i}", task=str(i % 10), model=model, trial=i // 10,
                          grade=g, reason=reason, stored_score=grade)


def test_cells_pairs_reproduce_reference() -> None:
    a = [_ep(i, "A", 1.0) for i in range(30)] + [_ep(i, "A", 0.0) for i in range(30, 50)]
    a += [_ep(i, "A", None, "sample_error") for i in range(50, 100)]
    b = [_ep(i, "B", 1.0) for i in range(43)] + [_ep(i, "B", 0.0) for i in range(43, 98)]
    b += [_ep(i, "B", None, "unscored") for i in range(98, 100)]
    cov = coverage(Archive("x", "jsonl", episodes=a + b))
    (tie,) = cov["ties"]
    assert (tie["a"], tie["b"], tie["intercept"], tie["slope"]) == ("A", "B", 0.26, 0.04)
    (diff,) = cov["differences"]
    assert diff["delta_stored"] == pytest.approx(-0.13)
    assert (diff["lower"], diff["upper"]) == (pytest.approx(-0.15), pytest.approx(0.37))
    assert not diff["sign_identified"]
    cells = {c["cell"]: c for c in cov["cells"]}
    assert cells["A"]["bounds"]["upper"] == 0.8 and cells["B"]["bounds"]["upper"] == 0.45
    assert cells["A"]["reasons"] == {"sample_error": 50}
    assert cov["reason_codes"].keys() == {"sample_error", "unscored"}


def test_empty_cell_summary_has_no_nan() -> None:
    s = cell_summary([])
    assert s["planned"] == 0 and s["score_stored"] is None and s["bounds"] is None


PASS, FAIL = StoredGrade(1.0, True), StoredGrade(0.0, False)


def _episode(eid: str, task: str, trial: int, grade: StoredGrade | None, stored: float | None, *,
        scaffold: str = "", reason: str | None = None, invalid: str | None = None,
        recovered: StoredGrade | None = None) -> ArchiveEpisode:
    return ArchiveEpisode(eid, task, "m", scaffold=scaffold, trial=trial, grade=grade,
                          stored_score=stored, reason=reason, reason_detail=f"why {eid}",
                          invalid_replay=invalid, recovered=recovered, termination="end")


EPISODES = [
    _episode("e1", "t1", 0, PASS, 1.0),
    _episode("e2", "t1", 1, FAIL, 0.0),
    _episode("e3", "t1", 2, None, 0.0, reason="step_cap", recovered=PASS),  # tau-bench stores 0
    _episode("e4", "t2", 0, PASS, 1.0),
    _episode("e5", "t2", 1, PASS, 1.0, reason="invalid_replay", invalid="no declared mode"),
    _episode("e6", "t2", 2, PASS, 0.75),
    _episode("s1", "t1", 0, PASS, None, scaffold="s"),
    _episode("s2", "t1", 1, FAIL, None, scaffold="s"),
]


def test_cell_summary_counts_denominators_and_bounds() -> None:
    assert cell_summary(EPISODES[:6]) == {
        "planned": 6, "graded": 4, "valid_recovered": 5, "recovered": 1, "recovered_pass": 1,
        "counts": {"pass": 3, "fail": 1, "ungraded": 1, "invalid_replay": 1},
        "reasons": {"invalid_replay": 1, "step_cap": 1},
        "graded_fraction": float(Fraction(4, 6)), "ungraded_share": float(Fraction(2, 6)),
        "score_graded_only": 0.75, "score_stored": 0.5,
        # the unresolved episodes' stored 0 and 1.0 are counted and excluded, never averaged
        "stored_values": {"count": 4, "mean": 0.6875, "excluded_unresolved": 2},
        "bounds": {"lower": 0.5, "upper": float(Fraction(5, 6)),
                   "width": float(Fraction(1, 3))}}


def test_cell_without_stored_values_or_episodes() -> None:
    s = cell_summary(EPISODES[6:])
    assert s["stored_values"] == {"count": 0, "mean": None, "excluded_unresolved": 0}
    assert (s["graded"], s["score_graded_only"], s["bounds"]["width"]) == (2, 0.5, 0.0)
    empty = cell_summary([])
    assert empty["bounds"] is None and empty["graded_fraction"] is None
    assert empty["score_graded_only"] is None and empty["score_stored"] is None


def test_coverage_section_cells_unresolved_and_pairs() -> None:
    c = coverage(Archive("x", "jsonl", episodes=EPISODES))
    assert [x["cell"] for x in c["cells"]] == ["m", "m / s"]
    assert c["overall"]["planned"] == 8 and c["overall"]["score_graded_only"] == 4 / 6
    assert c["unresolved_listed"] == 2
    assert c["unresolved_episodes"][0] == {
        "episode_id": "e3", "cell": "m", "task": "t1", "trial": 2, "outcome": "ungraded",
        "score": None, "reason": "step_cap", "detail": "why e3", "stored_score": 0.0,
        "termination": "end"}
    assert c["unresolved_episodes"][1]["outcome"] == "invalid_replay"
    assert c["reason_codes"] == {"invalid_replay": REASONS["invalid_replay"],
                                 "step_cap": REASONS["step_cap"]}
    # Δ = 3/6 − 1/2 = 0; lower = Δ − U_B/N_B = 0, upper = Δ + U_A/N_A = 1/3: sign unknown
    assert c["differences"] == [{"a": "m", "b": "m / s", "delta_stored": 0.0, "lower": 0.0,
                                 "upper": float(Fraction(1, 3)), "sign_identified": False}]
    # equal stored scores: a stays the lower; q_A* = (6/2)(1/2 − 1/2 + 0 · q_B) = 0
    assert c["ties"] == [{"a": "m", "b": "m / s", "intercept": 0.0, "slope": 0.0,
                          "at_qb0": 0.0, "at_qb1": 0.0, "possible": True}]
    assert c["recovery"]["available"] is False


def test_sign_identified_when_bounds_exclude_zero() -> None:
    eps = [_episode(f"a{i}", "t", i, PASS, 1.0) for i in range(3)]
    eps += [ArchiveEpisode(f"b{i}", "t", "n", trial=i, grade=FAIL) for i in range(3)]
    eps += [ArchiveEpisode("b3", "t", "n", trial=3, grade=None, reason="step_cap")]
    (d,) = coverage(Archive("x", "jsonl", episodes=eps))["differences"]
    # Δ = 1 − 0 = 1; lower = 1 − 1/4 = 0.75 > 0
    assert (d["a"], d["b"], d["delta_stored"], d["lower"], d["upper"]) == ("m", "n", 1.0, 0.75,
                                                                          1.0)
    assert d["sign_identified"] is True
    (t,) = coverage(Archive("x", "jsonl", episodes=eps))["ties"]
    assert (t["a"], t["b"]) == ("n", "m")  # the lower stored score is a
    # n has U = 1 of 4: q_A* = 4 (3/3 − 0/4 + 0 · q_B) = 4 > 1: no tie possible
    assert (t["intercept"], t["slope"], t["possible"]) == (4.0, 0.0, False)


def test_unresolved_listing_is_capped_but_counted() -> None:
    eps = [ArchiveEpisode(f"u{i}", "t", "m", trial=i, reason="never_ran")
           for i in range(MAX_LISTED + 1)]
    c = coverage(Archive("x", "jsonl", episodes=eps))
    assert c["unresolved_listed"] == MAX_LISTED == len(c["unresolved_episodes"])
    assert c["overall"]["counts"]["ungraded"] == MAX_LISTED + 1


def test_task_view_counts_and_outcome_strings() -> None:
    v = task_view(Archive("x", "jsonl", episodes=EPISODES))
    assert v["counts"] == {"tasks": 3, "mixed": 3, "pass_and_fail": 2, "always_pass": 0,
                           "always_fail": 0, "with_unresolved": 2}
    assert v["mixed"][0] == {"cell": "m", "task": "t1", "trials": 3, "pass": 1, "fail": 1,
                             "ungraded": 1, "invalid_replay": 0, "outcomes": "PFU"}
    assert [m["outcomes"] for m in v["mixed"]] == ["PFU", "PIP", "PF"]
    eps = [_episode("p", "a", 0, PASS, 1.0), _episode("q", "a", 1, PASS, 1.0),
           _episode("r", "bb", 0, FAIL, 0.0)]
    assert task_view(Archive("x", "jsonl", episodes=eps))["counts"] == {
        "tasks": 2, "mixed": 0, "pass_and_fail": 0, "always_pass": 1, "always_fail": 1,
        "with_unresolved": 0}


def test_pass_k_section_stored_and_upper_curves() -> None:
    # m: t1 = P F U, t2 = P I P. Stored (unresolved = failure): t1 1 of 3, t2 2 of 3;
    # upper (unresolved = success): t1 2 of 3, t2 3 of 3. pass^k = mean of C(c,k)/C(n,k).
    m, ms = pass_k_section(Archive("x", "jsonl", episodes=EPISODES))
    assert {k: m[k] for k in m if k != "rows"} == {
        "cell": "m", "tasks": 2, "trials_per_task": [3], "tasks_with_unresolved": 2,
        "unresolved_episodes": 2, "k_defined": 3, "k_rows_omitted": 0}
    expected = [(1, Fraction(1, 2), Fraction(5, 6)), (2, Fraction(1, 6), Fraction(2, 3)),
                (3, Fraction(0), Fraction(1, 2))]
    assert m["rows"] == [{"k": k, "stored": pytest.approx(float(lo), rel=1e-12, abs=1e-15),
                          "upper": pytest.approx(float(hi), rel=1e-12)}
                         for k, lo, hi in expected]
    assert ms["cell"] == "m / s" and ms["tasks_with_unresolved"] == 0
    assert ms["rows"] == [{"k": 1, "stored": 0.5, "upper": 0.5},
                          {"k": 2, "stored": 0.0, "upper": 0.0}]


def test_pass_k_rows_stop_at_the_shortest_task_and_are_capped() -> None:
    eps = [ArchiveEpisode(f"a{i}", "a", "m", trial=i, grade=PASS) for i in range(2)]
    eps += [ArchiveEpisode(f"b{i}", "b", "m", trial=i, grade=FAIL) for i in range(3)]
    (cell,) = pass_k_section(Archive("x", "jsonl", episodes=eps))
    assert cell["trials_per_task"] == [2, 3] and cell["k_defined"] == 2
    assert [r["k"] for r in cell["rows"]] == [1, 2]
    eps = [ArchiveEpisode(f"c{i}", "c", "m", trial=i, grade=PASS) for i in range(101)]
    (cell,) = pass_k_section(Archive("x", "jsonl", episodes=eps))
    assert (cell["k_defined"], len(cell["rows"]), cell["k_rows_omitted"]) == (101, 100, 1)
    assert cell["rows"][-1] == {"k": 100, "stored": 1.0, "upper": 1.0}


def _cell(model: str, outcomes: str, task: str = "t") -> list[ArchiveEpisode]:
    grade = {"P": PASS, "F": FAIL, "U": None, "I": PASS}
    return [ArchiveEpisode(f"{model}{i}", task, model, trial=i, grade=grade[o],
                           reason="step_cap" if o == "U" else None,
                           invalid_replay="no mode" if o == "I" else None)
            for i, o in enumerate(outcomes)]


def _pair(a: str, b: str) -> tuple[dict, dict]:
    c = coverage(Archive("x", "jsonl", episodes=_cell("a", a) + _cell("b", b)))
    return c["differences"][0], c["ties"][0]


def test_difference_sign_uses_each_sides_own_unresolved_share() -> None:
    d, t = _pair("PPFF", "PPFFU")  # Δ = 1/2 − 2/5 = 0.1; lower 0.1 − 1/5 < 0: sign unknown
    assert (d["lower"], d["sign_identified"]) == (pytest.approx(-0.1), False)
    assert (t["a"], t["b"]) == ("b", "a")  # b's stored 0.4 is the lower
    d, _ = _pair("PFFU", "PPPF")  # Δ = −1/2; upper = −1/2 + 1/4 < 0: a is worse for sure
    assert (d["upper"], d["sign_identified"]) == (-0.25, True)
    d, _ = _pair("PFUU", "PPPF")  # upper = −1/2 + 2/4 = 0 exactly: not identified
    assert (d["upper"], d["sign_identified"]) == (0.0, False)


def test_bounds_need_a_planned_episode() -> None:
    with pytest.raises(ValueError, match=r"^planned must be positive$"):
        bounds_from_counts(0, 0, 0)
    assert bounds_from_counts(1, 1, 1) == Bounds(1.0, 1.0)


def test_tie_threshold_boundaries_are_possible() -> None:
    # S_A fixed (U_A = 0) exactly at either end of B's range [P_B/N_B, (P_B + U_B)/N_B]
    assert tie_threshold(10, 4, 0, 10, 4, 2).possible
    assert tie_threshold(10, 6, 0, 10, 4, 2).possible
    # q_A*(0) = 1 exactly is possible; 1.5 is not
    assert tie_threshold(10, 0, 5, 10, 5, 0).possible  # (10/5)(5/10 − 0) = 1
    assert not tie_threshold(10, 0, 4, 10, 6, 0).possible  # (10/4)(6/10) = 1.5


def test_reasons_without_a_code_and_unknown_codes() -> None:
    eps = [*_cell("m", "PU"), ArchiveEpisode("n", "t", "m", trial=9, reason="weird"),
           ArchiveEpisode("o", "t", "m", trial=8)]
    c = coverage(Archive("x", "jsonl", episodes=eps))
    assert c["overall"]["reasons"] == {"step_cap": 1, "weird": 1}  # no code: not listed
    assert c["reason_codes"] == {"step_cap": REASONS["step_cap"], "weird": "weird"}
    assert c["recovery"] == {
        "available": False,
        "reason": "grade recovery by replay applies to our own evidence store (format agm) "
                  "only; valid_recovered equals graded"}


def test_unresolved_and_task_view_counts_add_ungraded_and_invalid() -> None:
    eps = _cell("m", "UI", task="t9") + _cell("m", "FF", task="t11") + \
        _cell("m", "FF", task="t12") + _cell("m", "PI", task="t10")
    for i, e in enumerate(eps):
        e.episode_id, e.trial = f"e{i}", i % 2
    (cell,) = pass_k_section(Archive("x", "jsonl", episodes=eps))
    assert (cell["tasks_with_unresolved"], cell["unresolved_episodes"]) == (2, 3)
    v = task_view(Archive("x", "jsonl", episodes=eps))
    assert v["counts"]["always_fail"] == 2 and v["counts"]["with_unresolved"] == 2
    assert [m["task"] for m in v["mixed"]] == ["t9", "t10"]  # shorter names first
    assert v["mixed"][0] == {"cell": "m", "task": "t9", "trials": 2, "pass": 0, "fail": 0,
                             "ungraded": 1, "invalid_replay": 1, "outcomes": "UI"}


def test_cells_whose_plain_labels_coincide_are_counted_apart() -> None:
    from agentmetrology.archive.coverage import by_cell
    from agentmetrology.archive.model import ArchiveEpisode
    eps = [ArchiveEpisode("e1", "t1", "x / y", scaffold="", trial=0),
           ArchiveEpisode("e2", "t1", "x", scaffold="y", trial=0)]
    groups = by_cell(eps)
    assert {k: [e.episode_id for e in v] for k, v in groups.items()} == {
        '["x / y", ""]': ["e1"], '["x", "y"]': ["e2"]}


def test_an_unresolved_episode_names_the_cell_it_is_counted_in() -> None:
    # Model "x / y" alone and model "x" with scaffold "y": the cells are labelled apart, and the
    # unresolved list must name those labels, not the plain "x / y" that is neither cell.
    eps = [ArchiveEpisode("e1", "t1", "x / y", scaffold="", trial=0),
           ArchiveEpisode("e2", "t1", "x", scaffold="y", trial=0)]
    c = coverage(Archive("x", "jsonl", episodes=eps))
    assert [(u["episode_id"], u["cell"]) for u in c["unresolved_episodes"]] == [
        ("e1", '["x / y", ""]'), ("e2", '["x", "y"]')]
    assert {u["cell"] for u in c["unresolved_episodes"]} == {x["cell"] for x in c["cells"]}


def test_exact_mean_equals_the_mean_of_one_fraction_per_value() -> None:
    """Grouping equal values changes nothing: the exact sum is rounded once, as before."""
    import random

    gen = random.Random(7)
    for _ in range(200):
        pool = [gen.random() for _ in range(gen.randint(1, 5))] + [0.0, -0.0, 1, 0.1, 1e-300]
        values = [gen.choice(pool) for _ in range(gen.randint(1, 300))]
        want = float(sum(Fraction(v) for v in values) / len(values))
        assert exact_mean(values) == want
    assert exact_mean([0.1] * 3) == float(Fraction(0.1))  # not 0.1+0.1+0.1 over 3 in floats
    with pytest.raises(ValueError):
        exact_mean([float("nan")])  # as Fraction(nan) always raised
