"""Flip accounting and the excess flip rate: hand-counted records, resampling plan, refusals.

Spec (docs/stats.md, "Flips"): n01 = fail->pass, n10 = pass->fail, net = (n01 - n10)/N, flip
fraction = (n01 + n10)/N; the excess flip rate is the flip rate between conditions minus the
flip rate between identical reruns, with a seeded bootstrap CI over units.
"""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology import stats

COND_A = [0, 1, 1, 0, 1, 0, 1, 1]
COND_B = [1, 1, 0, 0, 0, 1, 1, 1]  # units 0, 5 fail->pass; 2, 4 pass->fail: 4 flips of 8
RERUN_A = [0, 1, 1, 0, 1, 0, 1, 1]
RERUN_B = [0, 1, 1, 1, 1, 0, 1, 1]  # unit 3 flips: 1 of 8


def test_flip_record_by_hand() -> None:
    result = stats.flips(COND_A, COND_B)
    assert result.to_dict() == {"value": 0.5, "n": 8, "n01": 2, "n10": 2, "net": 0.0,
                                "method": "flip accounting", "seed": None, "interval": None}
    skewed = stats.flips([True, False, False, False], [True, True, True, False])
    assert (skewed.n01, skewed.n10, skewed.value, skewed.net) == (2, 0, 0.5, 0.5)


def test_joint_excess_is_the_bootstrap_of_the_per_unit_difference() -> None:
    # Joint resampling of units: the excess is the mean of (condition flip - rerun flip).
    per_unit = np.not_equal(COND_A, COND_B).astype(float) - np.not_equal(RERUN_A, RERUN_B)
    for seed, confidence, resamples in ((0, 0.95, 2000), (7, 0.9, 500)):
        result = stats.excess_flip_rate(COND_A, COND_B, RERUN_A, RERUN_B, seed=seed,
                                        confidence=confidence, resamples=resamples)
        reference = stats.bootstrap_ci(per_unit, seed=seed, confidence=confidence,
                                       resamples=resamples)
        assert result.to_dict() == {
            "value": 0.375,
            "interval": list(reference.interval or ()),
            "n": 8,
            "condition_rate": 0.5,
            "rerun_rate": 0.125,
            "method": "excess flip rate, joint unit bootstrap",
            "seed": seed,
            "confidence": confidence,
            "resamples": resamples,
        }


def test_defaults_are_joint_units_seed_0() -> None:
    default = stats.excess_flip_rate(COND_A, COND_B, RERUN_A, RERUN_B)
    assert default == stats.excess_flip_rate(
        COND_A, COND_B, RERUN_A, RERUN_B, same_units=True, confidence=0.95, resamples=2000, seed=0
    )
    # 20 resamples: the 2.5% point lies between the two smallest, so the seed shows.
    few = stats.excess_flip_rate(COND_A, COND_B, RERUN_A, RERUN_B, resamples=20)
    assert few == stats.excess_flip_rate(COND_A, COND_B, RERUN_A, RERUN_B, resamples=20, seed=0)
    assert few.interval != stats.excess_flip_rate(COND_A, COND_B, RERUN_A, RERUN_B,
                                                  resamples=20, seed=1).interval


def test_independent_units_resample_each_set_on_its_own() -> None:
    cond_a = np.zeros(40, dtype=int)
    cond_b = cond_a.copy()
    cond_b[:10] = 1  # condition flip rate 0.25
    rerun_a = np.zeros(30, dtype=int)
    result = stats.excess_flip_rate(cond_a, cond_b, rerun_a, rerun_a, same_units=False, seed=3)
    assert (result.value, result.condition_rate, result.rerun_rate, result.n) == (0.25, 0.25,
                                                                                   0.0, 40)
    assert result.method == "excess flip rate, independent unit bootstrap"
    # Reruns without a flip add nothing: the spread is the condition set's own, 10 of 40.
    lo, hi = result.interval
    assert 0.0 < lo < 0.25 < hi < 0.5
    # And the other way round: conditions without a flip, reruns that flip 6 of 30.
    rerun_b = rerun_a.copy()
    rerun_b[:6] = 1
    mirrored = stats.excess_flip_rate(cond_a, cond_a, rerun_a, rerun_b, same_units=False, seed=3)
    assert mirrored.value == pytest.approx(-0.2)
    lo, hi = mirrored.interval
    assert -0.5 < lo < -0.2 < hi < 0.0


def test_task_clusters_resample_whole_tasks_on_each_side() -> None:
    # 10 tasks x 4 units: on 3 tasks every condition unit flips, on the others none (12 of 40);
    # reruns never flip. The rates are the units' (0.3), but the evidence is 10 tasks, not 40
    # units: the clustered interval is wider, and exactly the one of the task-level shares.
    tasks = np.repeat(np.arange(10), 4)
    cond_a = np.zeros(40, dtype=int)
    cond_b = (tasks < 3).astype(int)
    rerun = np.zeros(40, dtype=int)
    units = stats.excess_flip_rate(cond_a, cond_b, rerun, rerun, same_units=False, seed=5)
    clustered = stats.excess_flip_rate(cond_a, cond_b, rerun, rerun, same_units=False, seed=5,
                                       clusters=(tasks, tasks))
    assert clustered.value == units.value == pytest.approx(0.3)
    assert clustered.method == "excess flip rate, independent task-cluster bootstrap"
    assert clustered.interval[1] - clustered.interval[0] > \
        1.5 * (units.interval[1] - units.interval[0])
    # With equal cluster sizes the ratio of sums is the mean of the per-task shares.
    per_task = stats.excess_flip_rate(np.zeros(10, dtype=int), (np.arange(10) < 3).astype(int),
                                      np.zeros(10, dtype=int), np.zeros(10, dtype=int),
                                      same_units=False, seed=5, clusters=(range(10), range(10)))
    assert clustered.interval == pytest.approx(per_task.interval)
    with pytest.raises(ValueError, match="clusters need same_units=False"):
        stats.excess_flip_rate(cond_a, cond_b, rerun, rerun, clusters=(tasks, tasks))


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (([0, 1], [0, 2]), {}, "b must contain only 0/1 (or booleans)"),
        (([0.5], [1]), {}, "a must contain only 0/1 (or booleans)"),
        (([0, 1], [0, 1, 1]), {}, "a and b must have the same length (matched), got 2 and 3"),
    ],
)
def test_flip_refusals(args: tuple[object, object], kwargs: dict[str, object],
                       message: str) -> None:
    with pytest.raises(ValueError) as info:
        stats.flips(*args, **kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message


GOOD = [0, 1, 1]


@pytest.mark.parametrize(
    ("arrays", "kwargs", "message"),
    [
        (([2, 1, 1], GOOD, GOOD, GOOD), {}, "condition_a must contain only 0/1 (or booleans)"),
        ((GOOD, [2, 1, 1], GOOD, GOOD), {}, "condition_b must contain only 0/1 (or booleans)"),
        ((GOOD, GOOD, [2, 1, 1], GOOD), {}, "rerun_a must contain only 0/1 (or booleans)"),
        ((GOOD, GOOD, GOOD, [2, 1, 1]), {}, "rerun_b must contain only 0/1 (or booleans)"),
        ((GOOD, [0, 1], GOOD, GOOD), {},
         "condition_a and condition_b must have the same length (matched), got 3 and 2"),
        ((GOOD, GOOD, GOOD, [0, 1]), {},
         "rerun_a and rerun_b must have the same length (matched), got 3 and 2"),
        ((GOOD, GOOD, [0, 1], [0, 1]), {},
         "rerun_a must have the same length as condition_a when same_units=True, got 2 and 3"),
        ((GOOD, GOOD, GOOD, GOOD), {"resamples": 0}, "resamples must be an integer >= 1, got 0"),
        ((GOOD, GOOD, GOOD, GOOD), {"confidence": 1.0}, "confidence must be in (0, 1), got 1.0"),
    ],
)
def test_excess_refusals_name_the_argument(
    arrays: tuple[list[int], ...], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError) as info:
        stats.excess_flip_rate(*arrays, **kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message
