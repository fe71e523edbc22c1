"""Every reference value of docs/stats.md ("Reference values"), to the stated precision."""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology import stats

RUNS_A = [0, 0, 1, 0, 0, 0, 0, 1, 1, 1]
RUNS_B = [1, 1, 1, 1, 0, 0.81, 1, 1, 0.81, 0.81]


def test_per_seed_f1_first_reference() -> None:
    assert stats.mean(RUNS_A).value == pytest.approx(0.4, abs=1e-12)
    assert stats.worst(RUNS_A).value == 0.0
    assert stats.cvar(RUNS_A, alpha=0.2).value == 0.0
    assert stats.reliability_at(RUNS_A, tau=0.9).value == pytest.approx(0.4, abs=1e-12)


def test_per_seed_f1_second_reference() -> None:
    assert stats.mean(RUNS_B).value == pytest.approx(0.843, abs=1e-12)
    assert stats.worst(RUNS_B).value == 0.0
    assert stats.cvar(RUNS_B, alpha=0.2).value == pytest.approx(0.405, abs=1e-12)
    assert stats.reliability_at(RUNS_B, tau=0.9).value == pytest.approx(0.6, abs=1e-12)
    assert stats.reliability_gap(RUNS_B).value == pytest.approx(0.843, abs=1e-12)


def test_wilson_14_of_30() -> None:
    result = stats.wilson(14, 30)
    assert result.interval is not None
    assert round(result.interval[0], 3) == 0.302
    assert round(result.interval[1], 3) == 0.639


@pytest.mark.parametrize(("up", "down", "p"), [(4, 1, 0.375), (5, 2, 0.453), (6, 2, 0.289)])
def test_exact_sign_test(up: int, down: int, p: float) -> None:
    assert round(stats.sign_test(up, down).p_value, 3) == p
    # The test is symmetric in its two counts.
    assert stats.sign_test(down, up).p_value == stats.sign_test(up, down).p_value


def test_holm_reference() -> None:
    result = stats.holm([0.0011, 0.0076, 0.0355, 0.0231, 0.3495, 0.6031])
    expected = [0.0066, 0.0380, 0.1065, 0.0924, 0.6990, 0.6990]
    assert [round(v, 4) for v in result.adjusted] == expected
    assert result.rejected == (True, True, False, False, False, False)


def test_flip_fraction_77_of_800() -> None:
    a = np.zeros(800, dtype=int)
    b = np.zeros(800, dtype=int)
    b[:40] = 1  # 40 fail -> pass
    a[40:77] = 1  # 37 pass -> fail
    a[100:300] = b[100:300] = 1  # unchanged passes
    result = stats.flips(a, b)
    assert (result.n01, result.n10, result.n) == (40, 37, 800)
    assert result.value == 0.09625
    assert result.net == pytest.approx(3 / 800)


def test_pairs_among_units() -> None:
    assert stats.pair_count(27) == 351
    assert stats.pair_count(17) == 136
    assert stats.reversals(np.arange(27.0), np.arange(27.0)).pairs == 351


def test_strict_reversal_is_negative_product() -> None:
    # Units 0/1 swap (reversal), 1/2 tie after (d1 = 0, not a reversal), 0/2 keep order.
    result = stats.reversals([0.1, 0.5, 0.9], [0.6, 0.2, 0.2])
    assert result.pairs == 3
    assert result.reversals == 2  # (0,1): d0<0, d1>0 ; (0,2): d0<0, d1>0
    assert result.ties == 1
