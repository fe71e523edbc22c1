"""The slack dose response of a dose plan: one table of delta per target and slack, and its shape.

A dose plan (kind "dose") compares two arms at each slack (the B2 design: delta = constant −
escalating coverage). This module gathers, from the analysed cells, the per-arm table and the
decision-invariance check, per target and slack: delta with its paired bootstrap CI, the
sign-flip p and its Holm adjustment, the verdict, and per arm coverage, quota deaths and SKIPs.
The shape is read off these numbers by fixed predicates (`shape`), never asserted.
"""

from __future__ import annotations

import itertools
from typing import Any

from agentmetrology.experiment.plan import GROUND_TRUTH


def _arm_name(condition: str) -> str:
    """Return an arm's name without its slack (`stress:b2:constant:slack=2` -> ...constant)."""
    return condition.rsplit(":slack=", 1)[0]


def _invariance_at(items: list[dict[str, Any]], base: str, arm: str) -> dict[str, Any]:
    """Return the targets' decision-invariance check in both arms at one slack."""
    by = {x["arm"]: x for x in items}
    out: dict[str, Any] = {}
    for role, cond in (("baseline", base), ("arm", arm)):
        x = by.get(cond)
        out[role] = None if x is None else {
            "invariant": x["invariant"], "complete": x["complete"],
            "distinct_vectors": x["distinct_vectors"], "indistinguishable": x["indistinguishable"]}
    checks = [v for v in out.values() if v is not None]
    # None: not checked (invariance compares targets: a plan of one target has none to compare)
    out["forced"] = all(v["invariant"] for v in checks) if checks else None
    return out


def dose_rows(plan: dict[str, Any], cells: list[dict[str, Any]],
              arms: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return one row per target, level and slack: delta, its test, and the arms' accounting."""
    per_arm = {(r["level"], r["agent"], r["arm"]): r for r in arms}
    rows = []
    for c in cells:
        if c["scorer"] != GROUND_TRUTH:
            continue
        d = c["delta"]
        row: dict[str, Any] = {
            "target": c["target"], "level": c["level"], "slack": c["slack"],
            "outcome": c["outcome"], "pairs": c["pairs"],
            "delta": None if d is None else d["value"],
            "interval": None if d is None else d["interval"],
            "sign_flip_p": None if c["sign_flip"] is None else c["sign_flip"]["p_value"],
            "p_holm": c["p_holm"], "family_size": c["family_size"], "verdict": c["verdict"],
            # below the rule's minimum pairs no data could confirm: "not confirmed" says nothing
            "sufficient": c["rule"]["sufficient"], "minimum": c["rule"]["minimum"]}
        if d is not None and d.get("interval_note"):  # fewer than 3 pairs: why no interval
            row["interval_note"] = d["interval_note"]
        for role, cond in (("baseline", c["baseline"]), ("arm", c["arm"])):
            a = per_arm.get((c["level"], c["target"], cond), {})
            row[role] = {"condition": cond, "coverage": a.get("coverage"),
                         "quota_deaths": a.get("quota_deaths"), "skips": a.get("skips")}
        rows.append(row)
    return rows


def shape(rows: list[dict[str, Any]], invariance: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the dose response's shape by fixed predicates over the rows, per level.

    forced at a slack: every target gives the same per-seed outcome in both arms there (the
    design cannot tell their decisions apart); binds at a slack: some target's delta is
    confirmed there; whether a slack binds is undetermined (None) when none of its deltas is
    confirmed and one of them has fewer pairs than the rule needs to confirm at all. The
    inverted U of decision relevance holds iff the lowest slack is forced, nothing binds at the
    highest, and at some slack in between the squeeze binds while the targets' outcomes differ;
    forcing is not checked (None) for a plan of one target, and the inverted U is then
    undetermined (None) unless the highest slack binds; it is undetermined too where a binding
    it needs is. Per target: whether delta is non-increasing in slack.
    """
    slacks = sorted({r["slack"] for r in rows})
    forced = {x["slack"]: x["forced"] for x in invariance}
    binds = {k: _binds([r for r in rows if r["slack"] == k]) for k in slacks}
    lo, hi = slacks[0], slacks[-1]
    # a slack whose forcing was not checked is neither forced nor free here
    middle = [k for k in slacks[1:-1] if binds[k] and forced.get(k) is False]
    targets: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        targets.setdefault(r["target"], []).append(r)
    falling: dict[str, bool | None] = {}
    for t, rs in targets.items():
        ds = [r["delta"] for r in sorted(rs, key=lambda r: r["slack"])]
        falling[t] = None if None in ds else all(b <= a for a, b in itertools.pairwise(ds))
    at_lowest = forced.get(lo)
    open_middle = any(binds[k] is None and forced.get(k) is not True for k in slacks[1:-1])
    if at_lowest is False or binds[hi] is True:
        inverted: bool | None = False
    elif at_lowest is None or binds[hi] is None:
        inverted = None  # undetermined whether the lowest slack forces, or the highest binds
    else:
        inverted = True if middle else None if open_middle else False
    return {"slacks": slacks, "forced": [forced.get(k) for k in slacks],
            "binds": [binds[k] for k in slacks], "lowest": lo, "highest": hi,
            "forced_at_lowest": at_lowest, "binds_at_highest": binds[hi],
            "binding_and_free_between": middle,
            "inverted_u": inverted,
            "delta_non_increasing": falling}


def _binds(rows: list[dict[str, Any]]) -> bool | None:
    """Return whether some delta at one slack is confirmed: None (undetermined) when none is
    and one of them has too few pairs for the rule to confirm (n = 4 with a family of 4 needs
    8: "nothing binds" would flip with the sample size)."""
    if any(r["verdict"] == "confirmed" for r in rows):
        return True
    return None if any(r.get("sufficient") is False for r in rows) else False


def dose_response(plan: dict[str, Any], cells: list[dict[str, Any]],
                  arms: list[dict[str, Any]],
                  invariance: list[dict[str, Any]]) -> dict[str, Any]:
    """Return experiment.json's `dose` section: rows, the invariance per slack and the shape."""
    pairs = [(plan["arms"][2 * i], plan["arms"][2 * i + 1], k)
             for i, k in enumerate(plan["doses"])]
    levels = list(plan["levels"])
    checks = [{"level": lv, "slack": k, **_invariance_at(
                   [x for x in invariance if x["level"] == lv], a, b)}
              for lv in levels for a, b, k in pairs]
    rows = dose_rows(plan, cells, arms)
    return {"baseline": _arm_name(pairs[0][0]), "arm": _arm_name(pairs[0][1]),
            "slacks": list(plan["doses"]), "rows": rows, "invariance": checks,
            "shape": {lv: shape([r for r in rows if r["level"] == lv],
                                [x for x in checks if x["level"] == lv]) for lv in levels}}
