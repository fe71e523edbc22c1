"""A bootstrap over fewer than 3 units (values or pairs) gives no interval, and says why.

The cluster rule (tests/stats/test_too_few_clusters.py) holds for every bootstrap of the
package: over one value every resample is that value (`[0.900, 0.900]` read as certainty), over
two there are 3 distinct resamples and a 95% "interval" is just the two values (`agm stats
summarize` printed `[0.200, 0.300]` for runs 0.2 and 0.3, `agm stats compare` over one pair
`0.700 95% CI [0.700, 0.700]` and Cliff's delta `[1.000, 1.000]`). From 3 units on nothing
changes: the intervals pinned below were computed before the rule.
"""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats.bootstrap import MIN_UNITS, too_few_units
from agentmetrology.stats.equivalence import INSUFFICIENT

ONE_VALUE = ("no interval: 1 value; a bootstrap over 1 value has 1 distinct resample, an "
             "interval needs at least 3 values")
TWO_VALUES = ("no interval: 2 values; a bootstrap over 2 values has 3 distinct resamples, an "
              "interval needs at least 3 values")
ONE_PAIR = ("no interval: 1 pair; a bootstrap over 1 pair has 1 distinct resample, an "
            "interval needs at least 3 pairs")
TWO_PAIRS = ("no interval: 2 pairs; a bootstrap over 2 pairs has 3 distinct resamples, an "
             "interval needs at least 3 pairs")


def test_one_rule_for_units_and_clusters() -> None:
    assert MIN_UNITS == stats.MIN_CLUSTERS == 3
    assert too_few_units([1]) == ONE_VALUE and too_few_units([2]) == TWO_VALUES
    assert too_few_units([2], "pair") == TWO_PAIRS and too_few_units([3], "pair") is None


@pytest.mark.parametrize(("values", "note"), [([0.9], ONE_VALUE), ([0.2, 0.3], TWO_VALUES)])
def test_bootstrap_cis_and_ci_withhold_the_interval_and_say_why(values: list[float],
                                                                note: str) -> None:
    for est in (*stats.bootstrap_cis(values, ["mean", "cvar", "worst", "reliability"]),
                stats.bootstrap_ci(values), stats.bootstrap_ci(values, lambda m: m.max(axis=1))):
        assert (est.interval, est.interval_note) == (None, note)
        assert est.to_dict()["interval"] is None and est.to_dict()["interval_note"] == note
    assert stats.bootstrap_ci(values).value == pytest.approx(float(np.mean(values)))


def test_summarize_cell_over_two_runs_gives_the_mean_without_an_interval() -> None:
    cell = stats.summarize_cell([0.2, 0.3], seed=0)
    # it read [0.200, 0.300]: the two runs as a 95% interval
    assert (cell.mean.value, cell.mean.interval, cell.mean.interval_note) == \
        (0.25, None, TWO_VALUES)
    assert (cell.cvar.interval, cell.cvar.interval_note) == (None, TWO_VALUES)
    assert cell.reliability.interval is not None  # Wilson's interval is no bootstrap
    rows = stats.reliability_table({"a": [0.2, 0.3], "b": [0.9]}, seed=0)
    assert [r.summary.mean.interval_note for r in rows] == [ONE_VALUE, TWO_VALUES]


def test_three_values_keep_their_intervals_and_serialise_as_before() -> None:
    mean, cvar = stats.bootstrap_cis([0.2, 0.3, 0.9], ["mean", "cvar"], seed=0)
    assert (mean.interval, cvar.interval) == ((0.20000000000000004, 0.9), (0.2, 0.9))
    assert stats.bootstrap_ci([0.2, 0.3, 0.9], lambda m: m.max(axis=1)).interval == (0.2, 0.9)
    cell = stats.summarize_cell([0.2, 0.3, 0.9], seed=0).to_dict()
    assert cell["mean"] == {"value": 0.4666666666666666, "interval": [0.20000000000000004, 0.9],
                            "n": 3, "method": "percentile bootstrap of mean", "seed": 0,
                            "confidence": 0.95, "resamples": 2000}


@pytest.mark.parametrize(("n", "note"), [(1, ONE_PAIR), (2, TWO_PAIRS)])
def test_unclustered_paired_statistics_withhold_every_interval_and_bootstrap_p(
        n: int, note: str) -> None:
    a, b = np.array([0.2, 0.3])[:n], np.array([0.9, 0.8])[:n]
    res = stats.compare_paired(a, b, seed=0)
    # one pair read `0.700 95% CI [0.700, 0.700]` and Cliff's delta [1.000, 1.000]
    assert (res.difference.interval, res.difference.interval_note) == (None, note)
    assert (res.cliffs_delta.interval, res.cliffs_delta.interval_note) == (None, note)
    eq = res.equivalence
    assert (eq.label, eq.interval, eq.interval90, eq.excludes_zero, eq.within_margin) == \
        (INSUFFICIENT, None, None, None, None)
    assert eq.interval_note == note
    # over two pairs it was 2/2001, the smallest p a bootstrap can give
    assert stats.bootstrap_p_values(a, b, eq) == (None, None)
    assert stats.paired_bootstrap(a, b, confidence=0.9).interval_note == note
    assert stats.cliffs_delta_paired(a, b).interval is None
    assert res.sign_flip.p_value == 2 / 2**n  # the exact test stands


def test_three_pairs_compare_as_before() -> None:
    a, b = [0.2, 0.3, 0.1], [0.9, 0.8, 0.2]
    res = stats.compare_paired(a, b, seed=0)
    assert res.difference.interval == (0.10000000000000002, 0.6999999999999998)
    assert res.equivalence.interval90 == (0.2333333333333333, 0.6333333333333333)
    assert res.cliffs_delta.interval == (1.0, 1.0) and res.equivalence.label == "different"
    assert stats.bootstrap_p_values(a, b, res.equivalence) == \
        (0.0009995002498750624, 0.960519740129935)
    assert "interval_note" not in res.to_dict()["difference"]


def test_unclustered_excess_flips_need_3_units_on_each_side() -> None:
    joint = stats.excess_flip_rate([1, 0], [0, 0], [1, 1], [1, 1], seed=0)
    assert (joint.value, joint.interval) == (0.5, None)
    assert joint.interval_note == ("no interval: 2 units; a bootstrap over 2 units has 3 "
                                   "distinct resamples, an interval needs at least 3 units")
    apart = stats.excess_flip_rate([1, 0, 1], [0, 0, 1], [1], [0], same_units=False, seed=0)
    assert apart.interval is None and apart.interval_note == (
        "no interval: 3 units on the condition side, 1 unit on the rerun side; a bootstrap "
        "over 1 unit has 1 distinct resample, an interval needs at least 3 units on each side")
    three = ([1, 0, 1], [0, 0, 0], [1, 1, 1], [1, 0, 1])
    assert stats.excess_flip_rate(*three, seed=0).interval == (-1.0, 1.0)
    assert stats.excess_flip_rate(*three, same_units=False, seed=0).interval == \
        (-0.33333333333333337, 1.0)


@pytest.mark.parametrize("call", [
    lambda: stats.bootstrap_ci([1.0], seed=-1),
    lambda: stats.paired_bootstrap([1.0], [2.0], seed=-1),
    lambda: stats.equivalence([1.0], [2.0], clusters=["t"], seed=-1),
    lambda: stats.cluster_bootstrap([1.0, 2.0], ["t", "u"], seed=-1),
    lambda: stats.excess_flip_rate([1], [0], [1], [1], seed=-1),
])
def test_a_bad_seed_fails_even_when_nothing_is_drawn(call: object) -> None:
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        call()  # type: ignore[operator]


def test_a_stratum_of_fewer_than_3_units_gives_no_interval() -> None:
    # Three strata of one cluster each: every stratified resample was the data itself, and the
    # interval read [0.5, 0.5] over three clusters that disagree (0.1, 0.5, 0.9).
    from agentmetrology.stats import cluster_bootstrap, compare_paired

    est = cluster_bootstrap([0.1, 0.5, 0.9], ["a", "b", "c"], strata=["x", "y", "z"])
    assert est.interval is None and est.value == pytest.approx(0.5)
    assert est.interval_note == ("no interval: a stratum holds 1 cluster; a bootstrap within it "
                                 "has 1 distinct resample, and each stratum needs at least 3 "
                                 "clusters")
    three_each = cluster_bootstrap([0.1, 0.5, 0.9, 0.2, 0.4, 0.8], list("abcdef"),
                                   strata=list("xxxyyy"))
    assert three_each.interval is not None and three_each.interval_note is None
    res = compare_paired([0.1, 0.2, 0.3], [0.9, 0.8, 0.9], clusters=["a", "b", "c"],
                         strata=["x", "y", "z"])
    assert res.difference.interval is None and res.cliffs_delta.interval is None
    assert res.difference.interval_note == est.interval_note


def test_no_unit_at_all_is_too_few_and_says_so() -> None:
    # math.comb(-1, 0) raised ValueError: a caller with an empty side crashed instead of
    # printing why there is no interval
    assert too_few_units([0]) == ("no interval: 0 values; there is nothing to resample, an "
                                  "interval needs at least 3 values")
    assert too_few_units([0, 4], "cluster", ("before", "after")) == (
        "no interval: 0 clusters before, 4 clusters after; there is nothing to resample, an "
        "interval needs at least 3 clusters on each side")
