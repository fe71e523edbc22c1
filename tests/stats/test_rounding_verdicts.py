"""A verdict never turns on the last bits of a float sum (stats/rounding.py).

0.4 - 0.3 and 0.7 - 0.6 are both a difference of 0.1 in the decimal text the values came
from, but 0.10000000000000003 and 0.09999999999999998 in floating point; and a task whose
repeats differ by +0.1 and -0.1 has a mean difference of 0, not 2.8e-17.
"""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology import stats


@pytest.mark.parametrize(("low", "high"), [(0.3, 0.4), (0.6, 0.7), (0.2, 0.3), (0.8, 0.9)])
def test_a_difference_of_exactly_the_margin_is_equivalent(low: float, high: float) -> None:
    a, b = np.full(8, low), np.full(8, high)
    res = stats.equivalence(a, b, margin=0.1)
    assert res.label == "equivalent"
    assert res.within_margin is True
    # The equivalence p agrees with the label: no draw lies beyond the margin.
    assert stats.bootstrap_p_values(a, b, res)[1] == pytest.approx(1 / 2001)


def _cancelling() -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Return 8 tasks, each with one repeat at +0.1 and one at -0.1 (b - a)."""
    a = np.array([0.3, 0.7] * 8)
    b = np.array([0.4, 0.6] * 8)
    return a, b, [i // 2 for i in range(16)]


def test_cancelling_repeats_are_a_zero_cluster_difference() -> None:
    a, b, tasks = _cancelling()
    res = stats.compare_paired(a, b, clusters=tasks)
    assert res.difference.value == 0.0
    assert res.difference.interval == (0.0, 0.0)
    assert res.equivalence.excludes_zero is False
    assert res.sign_flip.p_value == 1.0
    assert res.cliffs_delta.value == 0.0
    assert stats.paired_bootstrap(a, b, clusters=tasks).interval == (0.0, 0.0)


def test_a_real_small_cluster_difference_is_kept() -> None:
    # 1e-6 on a 0-1 scale is far above rounding: it stays an effect.
    a = np.array([0.5, 0.5] * 8)
    b = a + np.array([1e-6, 0.0] * 8)
    res = stats.compare_paired(a, b, clusters=[i // 2 for i in range(16)])
    assert res.difference.value == pytest.approx(5e-7)
    assert res.cliffs_delta.value == 1.0
    assert res.sign_flip.p_value == pytest.approx(2 / 256)
