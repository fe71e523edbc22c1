"""Coverage arithmetic: the spec's reference values, exactly."""

from __future__ import annotations

from fractions import Fraction

import pytest

from agentmetrology.archive.coverage import (
    bounds_from_counts,
    cell_summary,
    coverage,
    difference_bounds,
    identification_bounds,
    tie_threshold,
)
from agentmetrology.archive.model import Archive, ArchiveEpisode, StoredGrade
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
