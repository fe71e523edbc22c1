"""Wilson intervals at the edges (mutation testing found these unpinned)."""

import pytest

from agentmetrology.stats import wilson


def test_bounds_are_exact_at_zero_and_at_n() -> None:
    none = wilson(0, 10)
    assert none.value == 0.0 and none.interval[0] == 0.0  # exactly 0, not -1e-17 or 1
    assert 0.0 < none.interval[1] < 0.35
    every = wilson(10, 10)
    assert every.value == 1.0 and every.interval[1] == 1.0  # exactly 1
    assert 0.65 < every.interval[0] < 1.0
    one = wilson(1, 10)
    assert 0.0 < one.interval[0] < 0.1 < one.interval[1] < 1.0  # k = 1 is not the edge


def test_k_equal_to_n_is_allowed_and_k_above_n_is_not() -> None:
    assert wilson(3, 3).interval[1] == 1.0
    with pytest.raises(ValueError, match="k must be <= n"):
        wilson(4, 3)


def test_bad_counts_name_the_argument() -> None:
    with pytest.raises(ValueError, match=r"\bk\b"):
        wilson(-1, 5)
    with pytest.raises(ValueError, match=r"\bn\b"):
        wilson(0, 0)


def test_the_edge_bounds_are_exact_for_every_n() -> None:
    # Float arithmetic puts centre ± half a few ulps inside (0, 1) for some n; the edges are
    # exactly 0 and 1 by definition.
    for n in range(1, 300):
        assert wilson(0, n).interval[0] == 0.0, n
        assert wilson(n, n).interval[1] == 1.0, n


def test_the_record_says_what_it_is() -> None:
    est = wilson(14, 30, confidence=0.9)
    assert (est.n, est.method, est.confidence) == (30, "wilson score interval", 0.9)
