"""The power of the frozen rule for a Holm family: never 0 beside 'can confirm', never read low
from too few sign vectors under alpha / m (docs/experiments.md, "Power for the planned n")."""

from __future__ import annotations

from typing import Any

import numpy as np

from agentmetrology.experiment.power import plan_power
from agentmetrology.stats import sign_flip_test
from agentmetrology.stats._seeding import generator


def _dose(slacks: int, n: int, effect: float) -> dict[str, Any]:
    return {"kind": "dose", "doses": list(range(slacks)), "arms": [], "n": n,
            "power_effect": effect, "analysis_seed": 0}


def _read(pw: dict[str, Any]) -> tuple[Any, ...]:
    return pw["family"], pw["power"], pw["size"], pw["draws"], pw["can_confirm"]


def test_a_family_of_52_has_power_where_the_rule_can_confirm() -> None:
    # 1000 sign vectors: no simulated p below 1/1001 > 0.05/52, so the power read 0.0.
    exact = plan_power(_dose(26, 20, 2.0))
    assert _read(exact) == (52, 1.0, 0.0015, 2**20, True)
    assert "exact sign-flip (all 2^n sign vectors)" in exact["method"]


def test_exact_power_at_12_pairs_is_the_share_of_all_one_sign_experiments() -> None:
    # At n = 12 the exact p is 2/4096 for deltas all of one sign and at least 4/4096 > 0.05/52
    # otherwise, so the power is the share of simulated experiments all of one sign.
    pw = plan_power(_dose(26, 12, 2.0))
    z = generator(0).standard_normal((2, 2000, 12))
    alt, null = 2.0 + z[0], z[1]

    def one_sign(d: np.ndarray) -> float:
        return float(np.count_nonzero((d > 0).all(axis=1) | (d < 0).all(axis=1))) / 2000

    assert (pw["power"], pw["size"]) == (one_sign(alt), one_sign(null)) == (0.7635, 0.0)
    assert (pw["draws"], pw["can_confirm"]) == (4096, True)


def test_a_family_of_10_to_50_is_simulated_with_the_rules_exact_test() -> None:
    # 1000 random vectors hold only 5 (m = 10) to 1 (m = 50) under alpha / m: the simulated p,
    # (1 + extreme) / 1001, read the power low (m = 50, effect 0.8, n = 20: 0.367; exactly
    # 0.404). Up to 20 pairs the rule's test is exact, and so is the simulation now: its power
    # is the share of simulated experiments the exact sign-flip test rejects at alpha / m.
    pw = plan_power(_dose(5, 12, 1.0))
    z = generator(0).standard_normal((2, 2000, 12))

    def rejected(d: np.ndarray) -> float:
        zero = np.zeros(12)
        return sum(sign_flip_test(zero, row).p_value <= 0.05 / 10 for row in d) / 2000

    assert (pw["power"], pw["size"]) == (rejected(1.0 + z[0]), rejected(z[1])) == (0.503, 0.0035)
    assert (pw["family"], pw["draws"]) == (10, 4096)
    assert _read(plan_power(_dose(25, 20, 0.8))) == (50, 0.404, 0.0015, 2**20, True)
    assert _read(plan_power(_dose(25, 20, 2.0))) == (50, 1.0, 0.0015, 2**20, True)


def test_above_20_pairs_20_vectors_lie_under_the_threshold() -> None:
    # ceil(20 m / alpha) vectors, at most the rule's own 100,000: m = 10 takes 4000 (1000 read
    # 0.389), m = 52 takes 20,800 (1040 read 0.885; the rule's 100,000 give 0.9435).
    assert _read(plan_power(_dose(5, 30, 0.5))) == (10, 0.4035, 0.0035, 4000, True)
    assert _read(plan_power(_dose(26, 30, 1.0))) == (52, 0.941, 0.0005, 20800, True)


def test_a_family_1000_sign_vectors_resolve_keeps_its_power() -> None:
    # m = 2: 25 of the 1000 vectors lie under alpha / m = 0.025, so the count stays and so does
    # the pinned power (the exact test gives 0.448, within the simulation's error).
    ab = {"kind": "ab", "doses": [], "arms": ["a", "b"], "power_effect": 0.5, "analysis_seed": 0}
    assert _read(plan_power({**ab, "n": 20})) == (2, 0.4485, 0.0335, 1000, True)
    # A rule that cannot confirm (2/2^11 x 52 >= 0.05) keeps 1000 vectors and power 0.
    assert _read(plan_power(_dose(26, 11, 2.0))) == (52, 0.0, 0.0, 1000, False)
