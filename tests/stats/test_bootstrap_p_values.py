"""Bootstrap p-values for difference and equivalence agree with the equivalence labels."""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology.stats import bootstrap_p_values, equivalence, holm


def test_a_constant_gap_is_different_and_not_equivalent() -> None:
    a, b = np.ones(6), np.full(6, 0.7)
    tasks = [f"t{i}" for i in range(6)]
    eq = equivalence(a, b, margin=0.1, clusters=tasks)
    p_diff, p_eq = bootstrap_p_values(a, b, eq, clusters=tasks)
    assert p_diff == pytest.approx(2 / 2001)  # no resample reaches 0: (0 + 1) / (2000 + 1), x2
    assert p_eq == 1.0  # every resample is beyond the margin


def test_no_gap_is_equivalent_and_not_different() -> None:
    a = b = np.linspace(0.0, 1.0, 8)
    p_diff, p_eq = bootstrap_p_values(a, b, equivalence(a, b, margin=0.1))
    assert p_diff == 1.0 and p_eq == pytest.approx(1 / 2001)


@pytest.mark.parametrize("seed", range(6))
def test_the_p_values_agree_with_the_labels_of_the_same_draw(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, 20)
    b = a + rng.normal(0.04 * seed, 0.1, 20)
    res = equivalence(a, b, margin=0.1, seed=seed)
    p_diff, p_eq = bootstrap_p_values(a, b, res)
    # Far from the boundary the tail counts and the percentile intervals say the same thing.
    if p_eq < 0.04:
        assert res.within_margin
    if p_eq > 0.06:
        assert not res.within_margin
    if p_diff < 0.04:
        assert res.excludes_zero
    if p_diff > 0.06:
        assert not res.excludes_zero


def test_a_family_of_them_can_be_holm_adjusted() -> None:
    a = np.ones(5)
    ps = [bootstrap_p_values(a, np.full(5, v), equivalence(a, np.full(5, v)))[0]
          for v in (0.5, 1.0)]
    assert holm(ps).rejected == (True, False)


def test_the_margin_of_the_equivalence_decides_the_equivalence_p() -> None:
    a, b = np.zeros(6), np.full(6, 0.2)
    assert bootstrap_p_values(a, b, equivalence(a, b, margin=0.1))[1] == 1.0
    assert bootstrap_p_values(a, b, equivalence(a, b, margin=0.3))[1] == pytest.approx(1 / 2001)
