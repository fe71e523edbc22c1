"""A cluster bootstrap over fewer than 3 clusters gives no interval, and says why (stats.cluster).

Over one cluster every resample is that cluster: the "interval" was the value ([1.0, 1.0] read
as certainty). Over two there are 3 distinct resamples and a 95% "interval" is just the two
cluster means. Every clustered bootstrap of the package withholds it the same way; from 3
clusters on nothing changes (the pinned intervals below are those computed before the rule).
"""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats.cluster import MIN_CLUSTERS, too_few_clusters

ONE = ("no interval: 1 cluster; a bootstrap over 1 cluster has 1 distinct resample, an "
       "interval needs at least 3 clusters")
TWO = ("no interval: 2 clusters; a bootstrap over 2 clusters has 3 distinct resamples, an "
       "interval needs at least 3 clusters")


def test_the_rule_and_its_words() -> None:
    assert MIN_CLUSTERS == 3
    assert too_few_clusters([1]) == ONE and too_few_clusters([2]) == TWO
    assert too_few_clusters([3]) is None and too_few_clusters([3, 7], ("a", "b")) is None
    assert too_few_clusters([4, 2], ("of condition units", "of rerun units")) == (
        "no interval: 4 clusters of condition units, 2 clusters of rerun units; a bootstrap "
        "over 2 clusters has 3 distinct resamples, an interval needs at least 3 clusters on "
        "each side")


@pytest.mark.parametrize(("tasks", "note"), [(["a", "a"], ONE), (["a", "b"], TWO)])
def test_cluster_bootstrap_withholds_the_interval_and_says_why(tasks: list[str],
                                                                note: str) -> None:
    est = stats.cluster_bootstrap([1.0, 0.0], tasks, seed=0)
    assert (est.interval, est.interval_note) == (None, note)
    assert est.to_dict()["interval"] is None and est.to_dict()["interval_note"] == note


def test_three_clusters_keep_their_interval_and_serialise_as_before() -> None:
    est = stats.cluster_bootstrap([1.0, 0.0, 0.5, 1.0], ["a", "b", "c", "c"], seed=0)
    assert est.interval == (0.0, 1.0)
    assert est.interval_note is None and "interval_note" not in est.to_dict()


def test_clustered_paired_statistics_withhold_every_interval_and_every_bootstrap_p() -> None:
    a, b = np.zeros(4), np.array([0.9, 0.8, 1.0, 0.95])
    tasks = ["t", "t", "u", "u"]
    res = stats.compare_paired(a, b, clusters=tasks, seed=0)
    assert res.difference.interval is None and res.difference.interval_note == TWO
    assert res.cliffs_delta.interval is None and res.cliffs_delta.interval_note == TWO
    eq = res.equivalence
    # it was labelled "different" (both intervals [0.85, 0.975], the two task means)
    assert (eq.label, eq.interval, eq.interval90) == ("insufficient evidence", None, None)
    assert (eq.excludes_zero, eq.within_margin, eq.interval_note) == (None, None, TWO)
    # it was 2/2001 from two differences: the smallest p a bootstrap can give
    assert stats.bootstrap_p_values(a, b, eq, clusters=tasks) == (None, None)
    assert stats.paired_bootstrap(a, b, clusters=tasks, confidence=0.9).interval is None
    assert res.sign_flip.p_value == 0.5  # the exact test over 2 clusters stands
    unclustered = stats.compare_paired(a, b, seed=0)  # pairs: this rule is about clusters
    assert unclustered.difference.interval is not None


def test_three_clusters_compare_as_before() -> None:
    a, b = np.zeros(6), np.array([0.9, 0.8, 1.0, 0.95, 0.1, 0.2])
    tasks = ["t", "t", "u", "u", "v", "v"]
    res = stats.compare_paired(a, b, clusters=tasks, seed=0)
    assert res.difference.interval == (0.15000000000000002, 0.975)
    assert res.equivalence.label == "different"
    assert stats.bootstrap_p_values(a, b, res.equivalence, clusters=tasks)[0] == \
        pytest.approx(2 / 2001)
    assert "interval_note" not in res.to_dict()["difference"]
    assert "interval_note" not in res.to_dict()["equivalence"]


def test_clustered_excess_flips_need_3_clusters_on_each_side() -> None:
    ones, zeros = [1, 1, 1, 1], [0, 0, 0, 0]
    res = stats.excess_flip_rate(ones, zeros, ones, ones, same_units=False, seed=0,
                                 clusters=(["t", "t", "u", "u"], ["a", "b", "c", "d"]))
    # two tasks on the condition side, every unit flipping: it read [1.0, 1.0]
    assert (res.value, res.interval) == (1.0, None)
    assert res.interval_note == (
        "no interval: 2 clusters of condition units, 4 clusters of rerun units; a bootstrap "
        "over 2 clusters has 3 distinct resamples, an interval needs at least 3 clusters on "
        "each side")
    enough = stats.excess_flip_rate([1, 0, 1, 0, 1, 1], [0, 0, 0, 0, 1, 1], [1] * 6, [1] * 6,
                                    same_units=False, seed=0,
                                    clusters=(["t", "t", "u", "u", "v", "v"],
                                              ["a", "b", "c", "d", "e", "f"]))
    assert (enough.value, enough.interval) == (pytest.approx(1 / 3), (0.0, 0.5))
    assert "interval_note" not in enough.to_dict()
