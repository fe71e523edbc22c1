"""The ownership map as data: `{level: {decision: owner}}` (specs/comtrade.md)."""

from __future__ import annotations

from typing import Literal

Owner = Literal["harness", "model"]
DECISIONS: tuple[str, ...] = (
    "retry", "pagination", "dedup", "totals_drop", "reemission", "submission",
)
LEVELS: tuple[str, ...] = ("L0", "L1", "L2")

OWNERSHIP: dict[str, dict[str, Owner]] = {
    # Production: the harness owns all six; the model only picks tool order and page numbers.
    "L0": dict.fromkeys(DECISIONS, "harness"),
    # Half scaffold: the model decides RETRY or SKIP on each fault; the harness does the rest.
    "L1": {**dict.fromkeys(DECISIONS, "harness"), "retry": "model"},
    # Slim: the model owns everything, including re-emitting every cleaned row.
    "L2": dict.fromkeys(DECISIONS, "model"),
}

# What each level declares about model output it cannot use as-is (recorded in every episode).
SCAFFOLD_POLICIES: dict[str, dict[str, str]] = {
    level: {
        "parallel_tool_calls": "execute_in_order",
        "malformed_tool_arguments": "error_observation",
        "text_without_tool_call": "end_turn",
    }
    for level in LEVELS
}


def model_owned(level: str) -> tuple[str, ...]:
    """Return the decisions the model owns at `level`."""
    return tuple(d for d, owner in ownership_of(level).items() if owner == "model")


def ownership_of(level: str) -> dict[str, Owner]:
    """Return the ownership map of one level, or raise ValueError naming the known levels."""
    try:
        return OWNERSHIP[level]
    except KeyError:
        raise ValueError(f"unknown level {level!r}; known: {', '.join(LEVELS)}") from None
