"""Properties of pass^k: monotone non-increasing in k, and equal to the exact fraction."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentmetrology.archive.passk import pass_hat_k, pass_hat_k_curve, pass_hat_k_fraction
from support.props import props

TASK = st.integers(1, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n)))
COUNTS = st.lists(TASK, min_size=1, max_size=8)


@props(150)
@given(COUNTS, st.integers(1, 15))
def test_pass_hat_k_is_monotone_non_increasing_in_k(counts: list[tuple[int, int]],
                                                     k_max: int) -> None:
    curve = pass_hat_k_curve(counts, k_max)
    assert len(curve) == k_max
    shortest = min(n for n, _ in counts)
    defined = [v for v in curve if v is not None]
    assert len(defined) == min(k_max, shortest)  # undefined only beyond the shortest task
    assert all(v is None for v in curve[len(defined):])
    assert all(0.0 <= v <= 1.0 for v in defined)
    assert all(a >= b for a, b in pairwise(defined))


@props(150)
@given(COUNTS, st.integers(1, 12))
def test_float_curve_matches_exact_fraction(counts: list[tuple[int, int]], k: int) -> None:
    exact = pass_hat_k_fraction(counts, k)
    got = pass_hat_k(counts, k)
    if exact is None:
        assert got is None
    else:
        assert got is not None
        assert abs(got - float(exact)) <= 1e-12


MESSAGE = r"^each task needs 0 <= successes <= trials$"


@pytest.mark.parametrize("bad", [[(3, 4)], [(3, -1)], [(2, 1), (3, 4)]])
def test_impossible_counts_are_refused_everywhere(bad: list[tuple[int, int]]) -> None:
    with pytest.raises(ValueError, match=MESSAGE):
        pass_hat_k_curve(bad, 2)
    with pytest.raises(ValueError, match=MESSAGE):
        pass_hat_k(bad, 1)
    with pytest.raises(ValueError, match=MESSAGE):
        pass_hat_k(bad, 0)  # checked even when k makes the answer undefined
    with pytest.raises(ValueError, match=MESSAGE):
        pass_hat_k_fraction(bad, 1)


def test_undefined_k_and_empty_counts_are_none() -> None:
    assert pass_hat_k([(2, 1)], 0) is None
    assert pass_hat_k([], 1) is None
    assert pass_hat_k([], 0) is None
    assert pass_hat_k_fraction([(2, 1)], 0) is None
    assert pass_hat_k_fraction([], 1) is None
    assert pass_hat_k_fraction([(2, 1)], 3) is None
    assert pass_hat_k_curve([], 3) == [None, None, None]
    assert pass_hat_k_curve([(2, 1)], 0) == []
