"""Two-factor eta squared on a hand-built table with known effects, and its refusals.

The table is grand + task + A + B + AxB with zero-sum effects and no residual, so every sum of
squares follows by hand: SS_task = i*j*sum(T^2), SS_a = t*j*sum(A^2), SS_b = t*i*sum(B^2),
SS_ab = t*sum(AB^2). All values are dyadic, so the arithmetic is exact.
"""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology import stats

T = np.array([-1 / 16, 1 / 16])  # 2 tasks
A = np.array([-1 / 8, 1 / 8])  # 2 levels of factor a
B = np.array([-1 / 8, 0.0, 1 / 8])  # 3 levels of factor b
AB = np.array([[1 / 16, 0.0, -1 / 16], [-1 / 16, 0.0, 1 / 16]])  # rows and columns sum to 0


def _table() -> np.ndarray:
    """Return the (2, 2, 3) table grand 0.5 + T + A + B + AB."""
    return 0.5 + T[:, None, None] + A[None, :, None] + B[None, None, :] + AB[None, :, :]


def test_hand_derived_sums_shares_and_degrees_of_freedom() -> None:
    result = stats.eta_squared(_table())
    # SS: task 6*2/256 = 3/64, a 6*2/64 = 12/64, b 4*2/64 = 8/64, ab 2*4/256 = 2/64; total 25/64.
    assert result.to_dict() == {
        "value": 25 / 64,
        "shares": {"a": 0.48, "b": 0.32, "ab": 0.08, "task": 0.12, "residual": 0.0},
        "sums_of_squares": {"a": 12 / 64, "b": 8 / 64, "ab": 2 / 64, "task": 3 / 64,
                            "residual": 0.0},
        "df": {"a": 1, "b": 2, "ab": 2, "task": 1, "residual": 5},
        "n": 12,
        "method": "two-factor eta squared, task as block",
        "seed": None,
        "interval": None,
        "levels": {"task": 2, "a": 2, "b": 3},
    }


def test_residual_is_what_the_factors_and_task_leave() -> None:
    y = _table()
    noise = np.array([[[1, -1, 0], [-1, 1, 0]], [[-1, 1, 0], [1, -1, 0]]]) / 32
    result = stats.eta_squared(y + noise)  # task x treatment interaction only: 8 cells at 1/32
    assert result.sums_of_squares["residual"] == pytest.approx(8 / 1024, abs=1e-15)
    assert result.value == pytest.approx(25 / 64 + 8 / 1024, abs=1e-15)
    assert result.sums_of_squares["a"] == pytest.approx(12 / 64, abs=1e-15)


def test_constant_table_has_no_shares() -> None:
    result = stats.eta_squared(np.full((2, 2, 2), 0.25))
    assert result.value == 0.0
    assert result.shares == dict.fromkeys(("a", "b", "ab", "task", "residual"))


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ([[["x", 1.0], [1.0, 1.0]]] * 2,
         "table must be numeric: could not convert string to float: 'x'"),
        (np.where(np.eye(2, dtype=bool)[None], np.nan, 1.0).repeat(2, axis=0),
         "table must be finite (one observation in every cell, no NaN)"),
        (np.ones((3, 2)), "table must be 3-D (tasks, levels_a, levels_b), got shape (3, 2)"),
        (np.ones((1, 2, 2)), "table needs >= 2 tasks and >= 2 levels per factor, got (1, 2, 2)"),
    ],
)
def test_refusals(table: object, message: str) -> None:
    with pytest.raises(ValueError) as info:
        stats.eta_squared(table)  # type: ignore[arg-type]
    assert str(info.value) == message
