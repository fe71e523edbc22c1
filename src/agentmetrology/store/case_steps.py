"""The case lifecycle's steps as data: what each writer records and from which states.

The writers (assess.cases through store.cases) refuse a step out of order; the store check
(store.verify_cases) holds every recorded case against the same table, so a transition written
outside them (a hand-forged event that skips calibration, say) is a finding.
"""

from __future__ import annotations

STATES = ("proposed", "calibrated", "admitted", "active", "withdrawn")
# The order a case moves in when nothing goes wrong (a withdrawal may come at any point).
FORWARD = ("proposed", "calibrated", "admitted", "active")
USABLE = ("admitted", "active")
WITHDRAWABLE = ("proposed", "calibrated", "admitted", "active")

# action -> (the states a case may be in before it, the state it records); the first event
# of every case, and only that one, is its proposal.
STEPS: dict[str, tuple[tuple[str, ...], str]] = {
    "propose": ((), "proposed"),
    "calibrate": (("proposed",), "calibrated"),
    "calibration failed": (("proposed",), "proposed"),
    "admit": (("calibrated",), "admitted"),
    "first use": (("admitted",), "active"),
    "withdraw": (WITHDRAWABLE, "withdrawn"),
}


def skipped(before: str, after: str) -> tuple[str, ...]:
    """Return the states a move from `before` to `after` passes over (none when it is not a
    move forward)."""
    if before not in FORWARD or after not in FORWARD:
        return ()
    return FORWARD[FORWARD.index(before) + 1:FORWARD.index(after)]
