"""Equivalence labels, flips and the excess flip rate, agreement, and the full comparison."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats._seeding import generator


@pytest.mark.parametrize(
    ("ci90", "ci95", "label"),
    [
        ((-0.05, 0.05), (-0.06, 0.06), "equivalent"),
        ((0.02, 0.08), (0.01, 0.09), "equivalent"),  # real but within margin: equivalent wins
        ((0.05, 0.20), (0.04, 0.22), "different"),
        ((-0.30, -0.15), (-0.32, -0.12), "different"),
        ((-0.05, 0.15), (-0.08, 0.18), "inconclusive"),
        ((-0.10, 0.10), (-0.12, 0.12), "equivalent"),  # the margin's edge is inside
    ],
)
def test_equivalence_label_precedence(
    ci90: tuple[float, float], ci95: tuple[float, float], label: str
) -> None:
    assert stats.equivalence_label(ci90, ci95, 0.10) == label


def test_equivalence_on_data() -> None:
    rng = generator(21)
    a = rng.uniform(size=200)
    near = stats.equivalence(a, a + rng.normal(0.0, 0.01, size=200), seed=1)
    assert near.label == "equivalent" and near.within_margin
    far = stats.equivalence(a, a + 0.3 + rng.normal(0.0, 0.05, size=200), seed=1)
    assert far.label == "different" and far.excludes_zero and not far.within_margin
    noisy = stats.equivalence(a[:8], a[:8] + rng.normal(0.0, 0.5, size=8), seed=1)
    assert noisy.label == "inconclusive"


def test_equivalence_intervals_come_from_the_paired_bootstrap() -> None:
    rng = generator(22)
    a, b = rng.uniform(size=30), rng.uniform(size=30)
    eq = stats.equivalence(a, b, seed=5)
    assert eq.interval == stats.paired_bootstrap(a, b, seed=5).interval
    assert eq.interval90 == stats.paired_bootstrap(a, b, seed=5, confidence=0.90).interval


def test_excess_flip_rate_joint_units() -> None:
    cond_a = [0, 1, 1, 0, 1, 0, 1, 1]
    cond_b = [1, 1, 0, 0, 0, 1, 1, 1]  # 4 flips of 8
    rerun_a = [0, 1, 1, 0, 1, 0, 1, 1]
    rerun_b = [0, 1, 1, 1, 1, 0, 1, 1]  # 1 flip of 8
    result = stats.excess_flip_rate(cond_a, cond_b, rerun_a, rerun_b, seed=2)
    assert (result.condition_rate, result.rerun_rate, result.value) == (0.5, 0.125, 0.375)
    assert result.interval[0] <= 0.375 <= result.interval[1]
    again = stats.excess_flip_rate(cond_a, cond_b, rerun_a, rerun_b, seed=2)
    assert again.interval == result.interval


def test_excess_flip_rate_independent_units() -> None:
    rng = generator(23)
    ca, cb = rng.integers(0, 2, 100), rng.integers(0, 2, 100)
    ra = rng.integers(0, 2, 60)
    rb = ra.copy()
    rb[:6] = 1 - rb[:6]
    result = stats.excess_flip_rate(ca, cb, ra, rb, same_units=False, seed=0)
    assert result.rerun_rate == pytest.approx(0.1)
    assert result.value == pytest.approx(float(np.mean(ca != cb)) - 0.1)
    assert result.interval[0] < result.value < result.interval[1]
    with pytest.raises(ValueError, match="rerun_a"):
        stats.excess_flip_rate(ca, cb, ra, rb, same_units=True)


def test_cohens_kappa_textbook_example() -> None:
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> po 0.7, pe 0.5, kappa 0.4.
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    result = stats.agreement(a, b)
    assert result.raw_agreement == pytest.approx(0.7)
    assert result.expected_agreement == pytest.approx(0.5)
    assert result.value == pytest.approx(0.4)
    assert stats.agreement([1, 2, 3], [1, 2, 3]).value == pytest.approx(1.0)
    assert stats.agreement([1, 1], [1, 1]).value is None


def test_compare_paired_combines_everything() -> None:
    rng = generator(24)
    tasks = np.repeat([f"t{i}" for i in range(30)], 3)
    a = rng.uniform(0.4, 1.0, size=tasks.size)
    b = np.clip(a + rng.normal(0.1, 0.1, size=tasks.size), 0.0, 1.0)
    result = stats.compare_paired(a, b, clusters=tasks, seed=3)
    assert (result.n_pairs, result.n_units, result.unit) == (90, 30, "cluster")
    assert result.difference.interval == result.equivalence.interval
    assert result.sign_flip.p_value < 0.01
    assert result.flips.n == 90
    assert result.mcnemar.n == result.flips.n01 + result.flips.n10
    assert json.loads(json.dumps(result.to_dict(), allow_nan=False))["unit"] == "cluster"
    plain = stats.compare_paired(a, b, seed=3)
    assert plain.n_units == 90 and plain.unit == "pair"


def test_compare_difference_equals_the_paired_bootstrap() -> None:
    rng = generator(25)
    tasks = np.repeat(np.arange(12), 2)
    strata = tasks % 3
    a, b = rng.uniform(size=24), rng.uniform(size=24)
    for confidence in (0.95, 0.90):
        result = stats.compare_paired(
            a, b, clusters=tasks, strata=strata, confidence=confidence, seed=6
        )
        direct = stats.paired_bootstrap(
            a, b, clusters=tasks, strata=strata, confidence=confidence, seed=6
        )
        assert result.difference == direct


def test_label_coding_is_the_same_for_lists_and_arrays() -> None:
    values = np.arange(6.0)
    labels = ["b", "a", "b", "c", "a", "c"]
    from_list = stats.cluster_bootstrap(values, labels, seed=1)
    from_array = stats.cluster_bootstrap(values, np.array(labels), seed=1)
    assert from_list == from_array
    ints = [3, 1, 3, 2, 1, 2]
    assert stats.cluster_bootstrap(values, ints, seed=1) == stats.cluster_bootstrap(
        values, np.array(ints), seed=1
    )
