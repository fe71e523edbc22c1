"""Paired tests: sign-flip permutation, paired bootstrap, Cliff's delta, sign test, McNemar.

Paired comparisons as whole records: hand-counted sign-flip and binomial p-values, the
Monte-Carlo sign-flip recomputed from its packed-bit draw, Holm by hand, refusals by name.

Spec (docs/stats.md, "Paired comparisons"): d = b - a; the sign-flip statistic is |sum(d)|, exact
over all 2^n sign vectors up to n = exact_limit (<= 20), else p = (1 + #extreme) / (1 + draws)
from one seeded draw of packed bits (bit b of byte j is the sign of d[8j + b], 1 = +); the sign
test and McNemar give min(1, 2 P(X <= min(k1, k2))), X ~ Binomial(k1 + k2, 1/2).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats._seeding import generator


def _brute_force_p(d: np.ndarray) -> float:
    observed = abs(d.sum())
    hits = 0
    for signs in itertools.product((-1.0, 1.0), repeat=d.size):
        hits += abs(float(np.dot(signs, d))) >= observed - 1e-12
    return hits / 2**d.size


def test_exact_sign_flip_matches_brute_force_enumeration() -> None:
    rng = generator(11)
    for n in (1, 2, 5, 9):
        a = rng.normal(size=n)
        b = a + rng.normal(0.3, 1.0, size=n)
        result = stats.sign_flip_test(a, b)
        assert result.exact and result.permutations == 2**n
        assert result.p_value == pytest.approx(_brute_force_p(b - a), abs=1e-12)


def test_exact_sign_flip_keeps_zero_differences() -> None:
    # Two zero differences double the number of sign vectors but not the p-value.
    base = stats.sign_flip_test([0, 0, 0], [1.0, 2.0, 0.5])
    padded = stats.sign_flip_test([0, 0, 0, 1, 1], [1.0, 2.0, 0.5, 1, 1])
    assert padded.n == 5
    assert padded.p_value == base.p_value == 0.25


def test_all_zero_differences_give_p_one() -> None:
    assert stats.sign_flip_test([1, 2, 3], [1, 2, 3]).p_value == 1.0


def test_exact_enumeration_up_to_twenty_pairs() -> None:
    rng = generator(12)
    a = rng.normal(size=20)
    result = stats.sign_flip_test(a, a + 0.4)
    assert result.exact and result.permutations == 2**20
    assert result.p_value < 0.001


def test_monte_carlo_above_the_limit_is_seeded_and_close_to_exact() -> None:
    rng = generator(13)
    a = rng.normal(size=14)
    b = a + rng.normal(0.2, 1.0, size=14)
    exact = stats.sign_flip_test(a, b).p_value
    mc = stats.sign_flip_test(a, b, exact_limit=0, seed=4)
    assert not mc.exact and mc.seed == 4
    assert mc.p_value == pytest.approx(exact, abs=0.01)
    assert stats.sign_flip_test(a, b, exact_limit=0, seed=4).p_value == mc.p_value
    assert stats.sign_flip_test(a, b, exact_limit=0, seed=5).p_value != mc.p_value


def test_monte_carlo_p_value_uses_plus_one_rule() -> None:
    a = np.zeros(40)
    b = np.full(40, 1.0)  # every random sign vector is less extreme than the data
    result = stats.sign_flip_test(a, b, draws=999)
    assert result.p_value == pytest.approx(1 / 1000)


def test_sign_flip_with_clusters_flips_cluster_means() -> None:
    a = [0, 0, 0, 0, 0, 0]
    b = [1, 3, 2, 2, -1, -1]
    by_cluster = stats.sign_flip_test(a, b, clusters=["x", "x", "y", "y", "z", "z"])
    assert by_cluster.n == 3
    assert by_cluster.p_value == stats.sign_flip_test([0, 0, 0], [2, 2, -1]).p_value


def test_paired_bootstrap_is_b_minus_a() -> None:
    est = stats.paired_bootstrap([0.1, 0.2, 0.3], [0.4, 0.5, 0.6], seed=1)
    assert est.value == pytest.approx(0.3)
    assert est.interval is not None
    assert est.interval[0] == pytest.approx(0.3) and est.interval[1] == pytest.approx(0.3)


def test_cliffs_delta_paired() -> None:
    est = stats.cliffs_delta_paired([0, 0, 0, 0, 0], [1, 1, 1, -1, 0], seed=0)
    assert est.value == pytest.approx((3 - 1) / 5)
    assert est.interval is not None and -1.0 <= est.interval[0] <= est.interval[1] <= 1.0
    again = stats.cliffs_delta_paired([0, 0, 0, 0, 0], [1, 1, 1, -1, 0], seed=0)
    assert again.interval == est.interval


def test_mcnemar_exact() -> None:
    assert stats.mcnemar(4, 1).p_value == stats.sign_test(4, 1).p_value
    assert stats.mcnemar(0, 0).p_value == 1.0
    assert round(stats.mcnemar(10, 2).p_value, 4) == 0.0386


def test_holm_handles_ties_and_caps_at_one() -> None:
    result = stats.holm([0.04, 0.04, 0.9])
    assert result.adjusted == (pytest.approx(0.12), pytest.approx(0.12), 0.9)
    assert stats.holm([0.6, 0.7]).adjusted == (1.0, 1.0)


A = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
B = np.array([0.2, 0.1, 0.5, 0.6, 0.5, 0.9, 0.8, 0.9])
TASKS = np.array([0, 0, 1, 1, 2, 2, 3, 3])


def test_paired_bootstrap_records_by_resampling_scheme() -> None:
    kw: dict[str, Any] = {"confidence": 0.9, "resamples": 300, "seed": 4}
    pairs = stats.paired_bootstrap(A, B, **kw)
    assert pairs == stats.Estimate(
        value=pytest.approx(0.1125), interval=stats.bootstrap_ci(B - A, **kw).interval, n=8,
        method="pair bootstrap of mean(b - a)", seed=4, confidence=0.9, resamples=300)
    clustered = stats.paired_bootstrap(A, B, clusters=TASKS, **kw)
    reference = stats.cluster_bootstrap(B - A, TASKS, **kw)
    assert (clustered.value, clustered.interval, clustered.n) == (
        reference.value, reference.interval, 4)
    assert clustered.method == "task-cluster bootstrap of mean(b - a)"
    strata = TASKS % 2
    stratified = stats.paired_bootstrap(A, B, clusters=TASKS, strata=strata, **kw)
    assert stratified.interval == stats.cluster_bootstrap(B - A, TASKS, strata=strata,
                                                          **kw).interval
    assert stratified.method == "stratified task-cluster bootstrap of mean(b - a)"
    assert stats.paired_bootstrap(A, B, strata=strata, **kw).method == (
        "stratified pair bootstrap of mean(b - a)")


@pytest.mark.parametrize(
    ("d", "p"),
    [
        ([1.0, 2.0, 3.0], 2 / 8),  # sums 6, 4, 2, 0, 0, -2, -4, -6: only +-6 reach |6|
        ([1.0, 1.0, 1.0, 1.0], 2 / 16),
        ([1.0, -1.0, 1.0, 1.0], 10 / 16),  # |sum| = 2: 1 + 4 + 4 + 1 of 16 vectors
        ([0.1, 0.2, 0.3], 2 / 8),  # ties survive rounding (0.1 + 0.2 + 0.3 != 0.6 in floats)
    ],
)
def test_exact_sign_flip_records_by_hand(d: list[float], p: float) -> None:
    result = stats.sign_flip_test(np.zeros(len(d)), d)
    assert result.to_dict() == {
        "value": pytest.approx(sum(d) / len(d)), "p_value": p, "n": len(d),
        "method": "sign-flip permutation (exact)", "seed": None, "exact": True,
        "permutations": 2 ** len(d), "interval": None}


def _packed_reference(d: np.ndarray, draws: int, seed: int) -> float:
    """Return (1 + #extreme) / (1 + draws) from the documented packed-bit draw, unpacked."""
    nbytes = (d.size + 7) // 8
    packed = generator(seed).integers(0, 256, size=(draws, nbytes), dtype=np.uint8)
    threshold = abs(d.sum()) - 1e-9 * np.abs(d).sum()
    extreme = 0
    for start in range(0, draws, 20_000):
        bits = np.unpackbits(packed[start:start + 20_000], axis=1, bitorder="little")
        signs = 2.0 * bits[:, : d.size] - 1.0
        extreme += int(np.count_nonzero(np.abs(signs @ d) >= threshold))
    return (1 + extreme) / (1 + draws)


@pytest.mark.parametrize(("n", "draws", "seed"), [(5, 999, 0), (13, 2000, 7), (30, 500, 3)])
def test_monte_carlo_sign_flip_is_its_packed_bit_draw(n: int, draws: int, seed: int) -> None:
    d = generator(100 + n).normal(0.2, 1.0, size=n)
    result = stats.sign_flip_test(np.zeros(n), d, exact_limit=min(n - 1, 20), draws=draws,
                                  seed=seed)
    assert result.to_dict() == {
        "value": pytest.approx(d.mean()), "p_value": _packed_reference(d, draws, seed),
        "n": n, "method": "sign-flip permutation (Monte-Carlo)", "seed": seed,
        "exact": False, "permutations": draws, "interval": None}


def test_monte_carlo_over_several_memory_chunks() -> None:
    # 200 differences = 25 bytes a draw: 2^22 // 25 = 167772 draws a chunk, so 2 chunks.
    d = generator(9).normal(0.05, 1.0, size=200)
    result = stats.sign_flip_test(np.zeros(200), d, draws=200_000, seed=1)
    assert result.p_value == _packed_reference(d, 200_000, 1)


def test_sign_flip_defaults_and_exact_limit_edges() -> None:
    d = generator(5).normal(0.3, 1.0, size=21)
    default = stats.sign_flip_test(np.zeros(21), d)
    assert (default.exact, default.permutations, default.seed) == (False, 100_000, 0)
    assert default.p_value == _packed_reference(d, 100_000, 0)
    assert stats.sign_flip_test(np.zeros(20), d[:20]).exact  # 20 pairs: still exact
    three = [1.0, 2.0, 3.0]
    assert stats.sign_flip_test([0, 0, 0], three, exact_limit=3).exact
    assert not stats.sign_flip_test([0, 0, 0], three, exact_limit=2).exact
    assert stats.sign_flip_test([0] * 20, list(d[:20]), exact_limit=20).exact


def test_cliffs_delta_records() -> None:
    kw: dict[str, Any] = {"confidence": 0.9, "resamples": 300, "seed": 2}
    signs = np.sign(B - A)  # 6 up, 1 down, 1 tie
    pairs = stats.cliffs_delta_paired(A, B, **kw)
    assert pairs == stats.Estimate(
        value=0.625, interval=stats.bootstrap_ci(signs, **kw).interval, n=8,
        method="paired cliff's delta, pair bootstrap", seed=2, confidence=0.9, resamples=300)
    # Clusters: the sign of each task's mean difference (0, 0.2, 0.15, 0.1: > 0 for tasks 1-3).
    clustered = stats.cliffs_delta_paired(A, B, clusters=TASKS, **kw)
    assert (clustered.value, clustered.n) == (0.75, 4)
    assert clustered.interval == stats.bootstrap_ci([0.0, 1.0, 1.0, 1.0], **kw).interval
    assert clustered.method == "paired cliff's delta, task-cluster bootstrap"


@pytest.mark.parametrize(
    ("up", "down", "p"),
    [(0, 0, 1.0), (3, 0, 0.25), (0, 3, 0.25), (1, 1, 1.0), (10, 0, 2 / 1024),
     (7, 3, 2 * 176 / 1024)],  # P(X <= 3) for n = 10: 1 + 10 + 45 + 120 = 176 of 1024
)
def test_binomial_tests_by_hand(up: int, down: int, p: float) -> None:
    sign = stats.sign_test(up, down)
    assert sign.to_dict() == {"value": float(up), "p_value": p, "n": up + down,
                              "method": "exact two-sided sign test", "seed": None,
                              "exact": True, "permutations": None, "interval": None}
    mcnemar = stats.mcnemar(up, down)
    assert (mcnemar.value, mcnemar.p_value, mcnemar.n, mcnemar.method) == (
        float(up), p, up + down, "exact mcnemar (binomial)")


def test_holm_record_by_hand() -> None:
    # Sorted 0.01, 0.03, 0.04 times 3, 2, 1: 0.03, 0.06, 0.04 -> running max 0.03, 0.06, 0.06.
    result = stats.holm(np.array([[0.01, 0.04, 0.03]]))
    assert result.to_dict() == {
        "adjusted": [pytest.approx(0.03), 0.06, 0.06], "p_values": [0.01, 0.04, 0.03],
        "rejected": [True, False, False], "alpha": 0.05, "n": 3, "method": "holm step-down",
        "seed": None, "value": None, "interval": None}
    assert stats.holm([0.01, 0.04, 0.03], alpha=0.06).rejected == (True, True, True)
    assert stats.holm([0.0, 1.0]).adjusted == (0.0, 1.0)  # both ends of [0, 1] are allowed


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: stats.sign_flip_test([0], [1], exact_limit=21),
         "exact_limit must be <= 20, got 21"),
        (lambda: stats.sign_flip_test([0], [1], exact_limit=-1),
         "exact_limit must be an integer >= 0, got -1"),
        (lambda: stats.sign_flip_test([0], [1], draws=0), "draws must be an integer >= 1, got 0"),
        (lambda: stats.sign_flip_test([0], [1], seed=-2),
         "seed must be a non-negative integer, got -2"),
        (lambda: stats.paired_bootstrap([0], [1], resamples=0),
         "resamples must be an integer >= 1, got 0"),
        (lambda: stats.paired_bootstrap([0], [1], confidence=1.5),
         "confidence must be in (0, 1), got 1.5"),
        (lambda: stats.cliffs_delta_paired([0], [1], resamples=0),
         "resamples must be an integer >= 1, got 0"),
        (lambda: stats.cliffs_delta_paired([0], [1], confidence=0),
         "confidence must be in (0, 1), got 0"),
        (lambda: stats.sign_test(True, 1), "n_up must be an integer >= 0, got True"),
        (lambda: stats.sign_test(1, -1), "n_down must be an integer >= 0, got -1"),
        (lambda: stats.mcnemar(-1, 1), "n01 must be an integer >= 0, got -1"),
        (lambda: stats.mcnemar(1, 0.5), "n10 must be an integer >= 0, got 0.5"),
        (lambda: stats.holm([]), "p_values must not be empty"),
        (lambda: stats.holm([0.5, np.nan]), "p_values must all lie in [0, 1]"),
        (lambda: stats.holm([-0.01]), "p_values must all lie in [0, 1]"),
        (lambda: stats.holm([1.01]), "p_values must all lie in [0, 1]"),
        (lambda: stats.holm([0.1], alpha=1), "alpha must be in (0, 1), got 1"),
        (lambda: stats.holm([0.1], alpha=0), "alpha must be in (0, 1), got 0"),
    ],
)
def test_refusals_name_the_argument(call: Callable[[], Any], message: str) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_monte_carlo_with_only_zero_differences_counts_every_draw() -> None:
    # |sum| = 0 under every sign vector: all draws are as extreme as the data, so p = 1.
    result = stats.sign_flip_test(np.zeros(25), np.zeros(25), draws=300)
    assert (result.exact, result.p_value) == (False, 1.0)


def test_cliffs_delta_within_strata() -> None:
    kw: dict[str, Any] = {"confidence": 0.9, "resamples": 300, "seed": 2}
    strata = TASKS % 2
    clustered = stats.cliffs_delta_paired(A, B, clusters=TASKS, strata=strata, **kw)
    # Cluster signs 0, 1, 1, 1 with cluster strata 0, 1, 0, 1, resampled within strata.
    reference = stats.cluster_bootstrap([0.0, 1.0, 1.0, 1.0], [0, 1, 2, 3],
                                        strata=[0, 1, 0, 1], **kw)
    assert (clustered.value, clustered.interval) == (0.75, reference.interval)
    assert clustered.method == "paired cliff's delta, stratified task-cluster bootstrap"
    pairs = stats.cliffs_delta_paired(A, B, strata=strata, **kw)
    signs = np.sign(B - A)
    assert pairs.interval == stats.cluster_bootstrap(signs, np.arange(8), strata=strata,
                                                     **kw).interval
    assert pairs.method == "paired cliff's delta, stratified pair bootstrap"


def test_resampling_functions_default_to_seed_0() -> None:
    for function in (stats.paired_bootstrap, stats.cliffs_delta_paired):
        default = function(A, B, resamples=20)
        assert default == function(A, B, resamples=20, seed=0, confidence=0.95)
        assert default.interval != function(A, B, resamples=20, seed=1).interval


def test_holm_reads_exact_fractions() -> None:
    from fractions import Fraction

    # e.g. sign-test p-values kept exact: 1/4 * 2 = 1/2, then the running max 1/2.
    result = stats.holm([Fraction(1, 4), Fraction(1, 2)])
    assert (result.adjusted, result.p_values) == ((0.5, 0.5), (0.25, 0.5))


def test_monte_carlo_signs_are_drawn_in_bounded_blocks_of_one_stream(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The packed signs were drawn at once, draws * n / 8 bytes: 6.25 GB for 500,000 pairs and
    # the default 100,000 draws. Drawn a block at a time, the peak stays near one block, and
    # the p-value is the one the single draw gave (the stream continues across blocks).
    import tracemalloc

    from agentmetrology.stats import paired

    rng = generator(21)
    a = rng.random(4000)
    b = a + rng.normal(0.002, 0.05, size=4000)
    whole = stats.sign_flip_test(a, b, draws=20_000, seed=3).p_value  # one block: 20000 x 500
    packed = generator(3).integers(0, 256, size=(20_000, 500), dtype=np.uint8)
    signs = np.unpackbits(packed, axis=1, bitorder="little")[:, :4000] * 2.0 - 1.0
    d = b - a
    threshold = abs(d.sum()) - 1e-9 * np.abs(d).sum()
    assert whole == (1 + int(np.count_nonzero(np.abs(signs @ d) >= threshold))) / 20_001
    monkeypatch.setattr(paired, "_CHUNK_ELEMENTS", 1 << 16)  # blocks of 128 rows
    tracemalloc.start()
    try:
        blocked = stats.sign_flip_test(a, b, draws=20_000, seed=3).p_value
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert blocked == whole
    assert peak < 4_000_000  # the single draw alone was 10,000,000 bytes
