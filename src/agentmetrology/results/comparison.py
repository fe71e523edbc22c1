"""The `agm stats compare` document: paired B - A, for one or a family of comparisons, Holm
across them.

A family is every value column (e.g. scorers) times every B group, each against A on the same
pairs. Beside the paired statistics of `compare_paired` each comparison carries the exact sign
test and its verdict (compare_verdict.py); the family carries Holm-adjusted sign-flip
p-values; a group that reran A identically gives the excess flip rate; a factor among the
pair-by columns gives eta squared (factor_variance.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from agentmetrology.results.compare_verdict import comparison_verdict
from agentmetrology.results.errors import TableError, statistics_refusals
from agentmetrology.results.exclusions import describe
from agentmetrology.results.factor_variance import eta_by_factor
from agentmetrology.results.pairing import (
    Pairing,
    PairSpec,
    align_pairs,
    check_groups,
    collect_pairs,
)
from agentmetrology.results.reading import read_results
from agentmetrology.results.request import ComparisonRequest
from agentmetrology.results.scales import Scale, scale_of
from agentmetrology.results.table import ResultsTable
from agentmetrology.stats import compare_paired, excess_flip_rate, holm, sign_test
from agentmetrology.stats.equivalence import SIGN_FLIP_MINIMUM
from agentmetrology.stats.rounding import at_least

ALPHA = 0.05  # the Holm family's level


@dataclass
class _Compared:
    """One comparison's document, and the pairs it was computed on (for the excess flips)."""

    doc: dict[str, Any]
    keys: list[tuple[str, ...]]
    a: Pairing
    b: Pairing
    scale: Scale


def _no_pairs(spec: PairSpec, counts: dict[str, Any], excluded: dict[str, Any]) -> TableError:
    """Return the error for a comparison without a single complete pair."""
    return TableError(
        f"no complete pairs of {spec.a!r} and {spec.b!r} by {','.join(spec.pair_by)} "
        f"({counts['only_a']} only in {spec.a!r}, {counts['only_b']} only in {spec.b!r}, "
        f"{counts['dropped_excluded']} dropped because a row was excluded: "
        f"{describe(excluded)})"
    )


def _one(table: ResultsTable, spec: PairSpec, request: ComparisonRequest) -> _Compared:
    """Return one comparison of spec.b against spec.a on spec.value (TableError if no pairs)."""
    optional = [c for c in (spec.cluster, spec.strata) if c]
    table.require([spec.value, spec.group, *spec.pair_by, *optional])
    check_groups(table, spec)
    pairs = collect_pairs(table, spec)
    keys, pair_counts = align_pairs(pairs)
    if not keys:
        raise _no_pairs(spec, pair_counts, pairs.excluded.to_dict())
    a_side, b_side = pairs.a.values, pairs.b.values
    scale = scale_of(spec.value, [v[0] for v in (*a_side.values(), *b_side.values())],
                     request.score_range, request.margin)
    x = scale.fraction([a_side[k][0] for k in keys])
    y = scale.fraction([b_side[k][0] for k in keys])
    result = compare_paired(
        x, y,
        clusters=[a_side[k][1] for k in keys] if spec.cluster else None,
        strata=[a_side[k][2] for k in keys] if spec.strata else None,
        margin=request.margin, tau=request.tau, confidence=request.confidence,
        resamples=request.resamples, draws=request.draws, seed=request.analysis_seed,
        minimum=SIGN_FLIP_MINIMUM,  # fewer units: no label (one pair was called `different`)
    )
    d = np.asarray(y) - np.asarray(x)
    up, down = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d < 0))
    doc = {
        "value": spec.value, "a": spec.a, "b": spec.b,
        "excluded": pairs.excluded.to_dict(),
        "excluded_by_group": {"a": pairs.a.excluded.to_dict(), "b": pairs.b.excluded.to_dict()},
        "coerced": pairs.coerced.to_dict(),
        "pairs": pair_counts,
        "scale": scale.describe(spec.value, request.margin, request.tau),
        "result": result.to_dict(),
        "sign_test": {**sign_test(up, down).to_dict(), "n_up": up, "n_down": down,
                      "ties": len(keys) - up - down},
    }
    return _Compared(doc=doc, keys=keys, a=a_side, b=b_side, scale=scale)


def _excess(table: ResultsTable, spec: PairSpec, c: _Compared,
            request: ComparisonRequest, rerun: str) -> dict[str, Any]:
    """Return flips A->B minus flips A->A' (A' = the rerun group) on the units all three share."""
    side = collect_pairs(table, replace(spec, b=rerun)).b.values
    keys = [k for k in c.keys if k in side]
    if not keys:
        return {"value": None, "why": f"no pair of {spec.a!r}, {spec.b!r} and {rerun!r} shares "
                                      "a key"}
    tau = request.tau

    def passed(values: Pairing) -> list[int]:  # tau is a fraction of the column's range
        return at_least(np.asarray(c.scale.fraction([values[k][0] for k in keys])),
                        tau).astype(int).tolist()

    a = passed(c.a)
    r = excess_flip_rate(a, passed(c.b), a, passed(side), confidence=request.confidence,
                         resamples=request.resamples, seed=request.analysis_seed)
    return {**r.to_dict(), "rerun_group": rerun, "why": ""}


def _family(table: ResultsTable, request: ComparisonRequest) -> list[dict[str, Any]]:
    """Return every comparison of the family, with its Holm p and excess flips."""
    members = [(v, b) for v in request.values for b in request.bs]
    compared = []
    for v, b in members:
        try:
            compared.append(_one(table, request.spec(v, b), request))
        except TableError as exc:
            if len(members) == 1:
                raise
            # one member without pairs stops the family (its Holm adjustment needs every
            # member): say which to leave out, never print the others unadjusted
            drop = " or ".join([f"--b {b!r}"] * (len(request.bs) > 1)
                               + [f"--value {v!r}"] * (len(request.values) > 1))
            raise TableError(f"{exc}; the family of {len(members)} comparisons (every --value "
                             f"x --b) is Holm-adjusted together, so none is given: leave "
                             f"{drop} out") from None
    adjusted = holm([c.doc["result"]["sign_flip"]["p_value"] for c in compared], ALPHA)
    for c, p, rej in zip(compared, adjusted.adjusted, adjusted.rejected, strict=True):
        c.doc["p_holm"], c.doc["holm_rejects"] = p, rej
        c.doc["verdict"] = comparison_verdict(c.doc["result"], rej)
        rerun = request.rerun_of_a
        c.doc["excess_flip"] = None if rerun is None else _excess(
            table, request.spec(c.doc["value"], c.doc["b"]), c, request, rerun)
    return [c.doc for c in compared]


def _scales_note(family: list[dict[str, Any]]) -> str:
    """Return the notice for a family whose value columns lie on different ranges ('' if one)."""
    ranges = {c["value"]: c["scale"]["range"] for c in family}
    if len({None if r is None else tuple(r) for r in ranges.values()}) < 2:
        return ""
    shown = ", ".join(f"{v} " + ("not declared" if r is None else f"{r[0]:g}-{r[1]:g}")
                      for v, r in ranges.items())
    own = " (an undeclared one in its own units)" if None in ranges.values() else ""
    return (f"the value columns lie on different ranges ({shown}): each is compared as "
            f"fractions of its own range{own}, and the margin and tau are taken per column")


def build_comparison(request: ComparisonRequest) -> dict[str, Any]:
    """Return the `compare` JSON document: the first comparison at the top, every one listed."""
    with statistics_refusals():
        table = read_results(request.source)
        family = _family(table, request)
        variance = None if request.factor is None else [
            eta_by_factor(table, request.spec(v, request.a), [request.a, *request.bs],
                          request.factor)
            for v in request.values
        ]
    first = family[0]
    return {
        "command": "stats compare", "source": table.source, "format": table.fmt,
        "value": first["value"], "group": request.group, "a": request.a, "b": first["b"],
        "difference": "b - a", "pair_by": list(request.pair_by), "cluster": request.cluster,
        "strata": request.strata, "parameters": request.parameters,
        "rows": {"read": len(table.rows)},
        "excluded": first["excluded"], "excluded_by_group": first["excluded_by_group"],
        "coerced": first["coerced"], "pairs": first["pairs"], "result": first["result"],
        "sign_test": first["sign_test"], "verdict": first["verdict"],
        "scale": first["scale"], "scales": _scales_note(family),
        "holm": {"family": len(family), "alpha": ALPHA,
                 "method": "Holm step-down over the sign-flip p of every --value x --b"},
        "comparisons": family,
        "variance": variance,
    }
