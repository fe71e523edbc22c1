"""Cohen's kappa and rank reversals (docs/stats.md, "Reversals") on hand-counted examples."""

from __future__ import annotations

import pytest

from agentmetrology.stats.agreement import agreement
from agentmetrology.stats.reversals import pair_count, reversals


def test_cohen_kappa_with_unequal_marginals() -> None:
    # 50 items: yes/yes 20, yes/no 10, no/yes 5, no/no 15. p_o = 35/50 = 0.7; A says yes 0.6,
    # B says yes 0.5, so p_e = 0.6·0.5 + 0.4·0.5 = 0.5 and kappa = (0.7 − 0.5)/(1 − 0.5) = 0.4
    a = ["yes"] * 30 + ["no"] * 20
    b = ["yes"] * 20 + ["no"] * 10 + ["yes"] * 5 + ["no"] * 15
    r = agreement(a, b)
    assert (r.raw_agreement, r.n, r.categories) == (pytest.approx(0.7), 50, 2)
    assert r.expected_agreement == pytest.approx(0.5) and r.value == pytest.approx(0.4)


def test_total_disagreement_and_the_undefined_case() -> None:
    r = agreement([0, 1], [1, 0])  # p_o = 0, p_e = 0.5: kappa = −1
    assert (r.raw_agreement, r.expected_agreement, r.value) == (0.0, 0.5, -1.0)
    same = agreement(["x", "x"], ["x", "x"])  # one label throughout: 0/0, undefined
    assert same.value is None and same.raw_agreement == 1.0 and same.categories == 1
    with pytest.raises(ValueError, match=r"^rater_a must not be empty$"):
        agreement([], [])
    with pytest.raises(ValueError, match=r"^rater labels must not contain missing labels"):
        agreement(["x", None], ["x", "y"])


def test_pair_count() -> None:
    assert (pair_count(0), pair_count(1), pair_count(2)) == (0, 0, 1)
    assert pair_count(5) == 10 and type(pair_count(5)) is int
    for bad in (-1, True, 2.0):
        with pytest.raises(ValueError, match=r"^n must be a non-negative integer, got "):
            pair_count(bad)


def test_reversal_fraction() -> None:
    r = reversals([1.0, 2.0, 3.0, 4.0], [2.0, 1.0, 3.0, 4.0])  # only (1, 2) swaps, of 6 pairs
    assert (r.value, r.n, r.pairs, r.reversals, r.ties) == (1 / 6, 4, 6, 1, 0)
    r = reversals([1.0, 2.0, 3.0], [3.0, 2.0, 1.0])
    assert (r.value, r.reversals) == (1.0, 3)
    assert reversals([1.0], [1.0]).value is None


def test_missing_labels_in_float32_arrays_are_refused_on_either_side() -> None:
    import numpy as np

    labels = np.array([1.0, np.nan], dtype=np.float32)
    same = np.array([1.0, 1.0], dtype=np.float32)
    for a, b in ((labels, same), (same, labels)):
        with pytest.raises(ValueError) as info:
            agreement(a, b)
        assert str(info.value) == "rater labels must not contain missing labels (None or NaN)"
