"""The power of the frozen rule for a large Holm family: no longer 0 beside 'can confirm'."""

from __future__ import annotations

from typing import Any

import numpy as np

from agentmetrology.experiment.power import plan_power
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
    # Above 20 pairs the rule's test is Monte-Carlo: ceil(52 / 0.05) = 1040 random vectors.
    assert _read(plan_power(_dose(26, 30, 1.0))) == (52, 0.885, 0.0015, 1040, True)


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


def test_families_1000_sign_vectors_serve_keep_their_power() -> None:
    assert _read(plan_power(_dose(25, 20, 2.0))) == (50, 0.9995, 0.0015, 1000, True)
    assert _read(plan_power(_dose(25, 20, 0.8))) == (50, 0.367, 0.0015, 1000, True)
    ab = {"kind": "ab", "doses": [], "arms": ["a", "b"], "power_effect": 0.5, "analysis_seed": 0}
    assert _read(plan_power({**ab, "n": 20})) == (2, 0.4485, 0.0335, 1000, True)
    # A rule that cannot confirm (2/2^11 x 52 >= 0.05) keeps 1000 vectors and power 0.
    assert _read(plan_power(_dose(26, 11, 2.0))) == (52, 0.0, 0.0, 1000, False)
