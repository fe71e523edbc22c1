"""A run exactly at tau passes, also when float arithmetic lands it a last bit below.

On a declared range a value becomes a fraction of it first: with --range 1,10 and tau 0.9
(9.1 points) a run of 9.1 is (9.1 - 1) / 9 = 0.8999999999999999, and it failed.
"""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology import stats


def test_reliability_counts_a_run_a_rounding_below_tau() -> None:
    runs = [(9.1 - 1) / 9, (9.1 - 1) / 9, (5 - 1) / 9, 1.0]
    assert runs[0] == 0.8999999999999999
    assert stats.reliability_at(runs, 0.9).value == 0.75  # was 0.25
    assert stats.summarize_cell(runs, tau=0.9).reliability.value == 0.75
    assert stats.bootstrap_ci(runs, "reliability", tau=0.9).value == 0.75
    # a real shortfall is not rounding: 0.8999 stays below 0.9
    assert stats.reliability_at([0.8999, 0.9], 0.9).value == 0.5


def test_pass_fail_flips_count_a_run_a_rounding_below_tau() -> None:
    a = np.full(6, (5 - 1) / 9)
    b = np.full(6, (9.1 - 1) / 9)
    res = stats.compare_paired(a, b, tau=0.9)
    assert (res.flips.n01, res.flips.n10) == (6, 0)  # was (0, 0)
    assert res.mcnemar.p_value == pytest.approx(0.03125)
