"""The masking sweep: which trajectories are masked, how many, and what each evidence view says.

Over N judged trajectories (each with its original contract status and the statuses of its
masked copy under the raw checker and the completeness-aware gate), every configuration
(mechanism x proportion) masks k = round(p * N) trajectories:

- random: a seeded uniform sample of k;
- failure-linked: trajectories not passing originally first, then passing ones (each group in a
  seeded order): the mask hides failures;
- success-linked: passing trajectories first: the mask hides successes.

Per configuration and view the envelope is computed over all N: a masked trajectory contributes
its masked copy's status (raw: FAIL/PARTIAL; gate: UNKNOWN "withheld"), an unmasked one its
original status. The gate's envelope is [established passes / N, (passes + masked) / N].
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from agentmetrology.assess.envelope import envelope_of
from agentmetrology.runtime.rng import rng

MECHANISMS = ("random", "failure-linked", "success-linked")
PROPORTIONS = (Fraction(0), Fraction(99, 1000), Fraction(302, 1000), Fraction(1, 2))
VIEWS = {"raw": "masked_raw", "gate": "masked_gate"}


def mask_count(proportion: Fraction, n: int) -> int:
    """Return how many of n trajectories a proportion masks (rounded half up)."""
    return int(proportion * n + Fraction(1, 2))


def choose(original: Sequence[str | None], mechanism: str, k: int, seed: int) -> list[int]:
    """Return the sorted indices of the k trajectories a mechanism masks."""
    gen = rng(seed, "mask", mechanism)  # the package's one seeded source (runtime/rng.py)
    idx = list(range(len(original)))
    if mechanism == "random":
        return sorted(int(i) for i in gen.choice(len(idx), size=k, replace=False))
    passing = [int(i) for i in gen.permutation([i for i in idx if original[i] == "PASS"])]
    other = [int(i) for i in gen.permutation([i for i in idx if original[i] != "PASS"])]
    if mechanism == "failure-linked":
        return sorted((other + passing)[:k])
    if mechanism == "success-linked":
        return sorted((passing + other)[:k])
    raise ValueError(f"unknown masking mechanism {mechanism!r}")


def _status(row: dict[str, Any], view: str) -> str | None:
    got = row.get(view)
    return None if got is None else str(got["contract"])


def sweep(rows: Sequence[dict[str, Any]], seed: int = 0) -> list[dict[str, Any]]:
    """Return one entry per mechanism x proportion: how many masked and each view's envelope."""
    original = [_status(r, "original") for r in rows]
    out = []
    for mechanism in MECHANISMS:
        for p in PROPORTIONS:
            k = mask_count(p, len(rows))
            masked = set(choose(original, mechanism, k, seed))
            entry: dict[str, Any] = {"mechanism": mechanism, "proportion": float(p),
                                     "masked": k, "masked_passing": sum(
                                         1 for i in masked if original[i] == "PASS")}
            for name, view in VIEWS.items():
                statuses = [_status(r, view) if i in masked else original[i]
                            for i, r in enumerate(rows)]
                entry[name] = envelope_of(statuses).as_dict()
            out.append(entry)
    return out
