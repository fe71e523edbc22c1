"""`agm stats compare`: paired B - A, for one or a family of comparisons, Holm across them.

A family is every `--value` column (e.g. scorers) times every `--b` group, each against `--a`
on the same pairs. Beside the paired statistics of `compare_paired` each comparison carries the
exact sign test; the family carries Holm-adjusted sign-flip p-values; `--rerun-of-a` names a
group that reran A identically, which gives the excess flip rate; `--factor` names a pair-by
column whose levels, crossed with the groups, give eta squared with the remaining pair-by
columns as blocks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
from rich.text import Text

from agentmetrology.cli.results_table import (
    PairSpec,
    ResultsTable,
    TableError,
    align_pairs,
    check_groups,
    collect_pairs,
    describe,
    read_results,
)
from agentmetrology.cli.stats_format import (
    Column,
    exclusion_lines,
    fitted_table,
    fmt,
    fmt_ci,
    fmt_p,
    print_lines,
    stats_console,
)
from agentmetrology.cli.stats_limits import check_limits
from agentmetrology.stats import (
    DEFAULT_MARGIN,
    compare_paired,
    eta_squared,
    excess_flip_rate,
    holm,
    sign_test,
)

ALPHA = 0.05


def _one(table: ResultsTable, spec: PairSpec, params: Mapping[str, Any]) -> dict[str, Any]:
    """Return one comparison of spec.b against spec.a on spec.value (TableError if no pairs)."""
    optional = [c for c in (spec.cluster, spec.strata) if c]
    table.require([spec.value, spec.group, *spec.pair_by, *optional])
    check_groups(table, spec)
    pairs = collect_pairs(table, spec)
    keys, pair_counts = align_pairs(pairs)
    if not keys:
        raise TableError(
            f"no complete pairs of {spec.a!r} and {spec.b!r} by {','.join(spec.pair_by)} "
            f"({pair_counts['only_a']} only in A, {pair_counts['only_b']} only in B, "
            f"{pair_counts['dropped_excluded']} dropped because a row was excluded: "
            f"{describe(pairs.excluded.to_dict())})"
        )
    a_side, b_side = pairs.a.values, pairs.b.values
    x = [a_side[k][0] for k in keys]
    y = [b_side[k][0] for k in keys]
    result = compare_paired(
        x, y,
        clusters=[a_side[k][1] for k in keys] if spec.cluster else None,
        strata=[a_side[k][2] for k in keys] if spec.strata else None,
        margin=params["margin"], tau=params["tau"], confidence=params["confidence"],
        resamples=params["resamples"], draws=params["draws"], seed=params["analysis_seed"],
    )
    d = np.asarray(y) - np.asarray(x)
    up, down = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d < 0))
    return {
        "value": spec.value, "a": spec.a, "b": spec.b,
        "excluded": pairs.excluded.to_dict(),
        "excluded_by_group": {"a": pairs.a.excluded.to_dict(), "b": pairs.b.excluded.to_dict()},
        "coerced": pairs.coerced.to_dict(),
        "pairs": pair_counts,
        "result": result.to_dict(),
        "sign_test": {**sign_test(up, down).to_dict(), "n_up": up, "n_down": down,
                      "ties": len(keys) - up - down},
        "_keys": keys, "_a": a_side, "_b": b_side,
    }


def _excess(table: ResultsTable, spec: PairSpec, c: dict[str, Any], rerun: str,
            params: Mapping[str, Any]) -> dict[str, Any]:
    """Return flips A->B minus flips A->A' (A' = the rerun group) on the units all three share."""
    side = collect_pairs(table, replace(spec, b=rerun)).b.values
    keys = [k for k in c["_keys"] if k in side]
    if not keys:
        return {"value": None, "why": f"no pair of {spec.a!r}, {spec.b!r} and {rerun!r} shares "
                                      "a key"}
    tau = params["tau"]
    a = [int(c["_a"][k][0] >= tau) for k in keys]
    r = excess_flip_rate(a, [int(c["_b"][k][0] >= tau) for k in keys], a,
                         [int(side[k][0] >= tau) for k in keys], confidence=params["confidence"],
                         resamples=params["resamples"], seed=params["analysis_seed"])
    return {**r.to_dict(), "rerun_group": rerun, "why": ""}


def _eta(table: ResultsTable, spec: PairSpec, groups: list[str], factor: str,
         value: str) -> dict[str, Any]:
    """Return eta squared of group x factor, the other pair-by columns as blocks."""
    if factor not in spec.pair_by:
        raise TableError(f"--factor {factor!r} must be one of the --pair-by columns "
                         f"({', '.join(spec.pair_by)})")
    at = spec.pair_by.index(factor)
    cells: dict[tuple[str, ...], dict[tuple[str, str], float]] = {}
    for g in groups:
        side = collect_pairs(table, replace(spec, value=value, a=g, b=g)).a.values
        for key, (v, _, _) in side.items():
            block = key[:at] + key[at + 1:]
            cells.setdefault(block, {})[(g, key[at])] = v
    levels = sorted({lv for c in cells.values() for _, lv in c})
    blocks = sorted(b for b, c in cells.items() if len(c) == len(groups) * len(levels))
    out: dict[str, Any] = {"value": value, "factors": {"a": spec.group, "b": factor},
                           "groups": groups, "levels": levels, "blocks": len(blocks)}
    if len(levels) < 2 or len(blocks) < 2:
        out.update(shares=None, why="needs 2 levels of the factor and 2 blocks complete in "
                                    "every group x level cell")
        return out
    arr = [[[cells[b][(g, lv)] for lv in levels] for g in groups] for b in blocks]
    out.update(shares=eta_squared(arr).to_dict()["shares"], why="")
    return out


def build_comparison(
    file: str,
    spec: PairSpec,
    *,
    values: list[str] | None = None,
    bs: list[str] | None = None,
    rerun_of_a: str | None = None,
    factor: str | None = None,
    margin: float = DEFAULT_MARGIN,
    tau: float = 0.9,
    seed: int = 0,
    resamples: int = 2000,
    confidence: float = 0.95,
    draws: int = 100_000,
) -> dict[str, Any]:
    """Return the `compare` JSON document: the first comparison at the top, every one listed."""
    check_limits(resamples, draws)
    table = read_results(file)
    values = values or [spec.value]
    bs = bs or [spec.b]
    params = {"margin": margin, "tau": tau, "analysis_seed": seed, "resamples": resamples,
              "confidence": confidence, "draws": draws}
    family = [_one(table, replace(spec, value=v, b=b), params) for v in values for b in bs]
    adjusted = holm([c["result"]["sign_flip"]["p_value"] for c in family], ALPHA)
    for c, p, rej in zip(family, adjusted.adjusted, adjusted.rejected, strict=True):
        c["p_holm"], c["holm_rejects"] = p, rej
        c["excess_flip"] = None if rerun_of_a is None else \
            _excess(table, replace(spec, value=c["value"], b=c["b"]), c, rerun_of_a, params)
    for c in family:
        for k in ("_keys", "_a", "_b"):
            del c[k]
    first = family[0]
    return {
        "command": "stats compare", "source": table.source, "format": table.fmt,
        "value": first["value"], "group": spec.group, "a": spec.a, "b": first["b"],
        "difference": "b - a", "pair_by": spec.pair_by, "cluster": spec.cluster,
        "strata": spec.strata, "parameters": params, "rows": {"read": len(table.rows)},
        "excluded": first["excluded"], "excluded_by_group": first["excluded_by_group"],
        "coerced": first["coerced"], "pairs": first["pairs"], "result": first["result"],
        "sign_test": first["sign_test"],
        "holm": {"family": len(family), "alpha": ALPHA,
                 "method": "Holm step-down over the sign-flip p of every --value x --b"},
        "comparisons": family,
        "variance": None if factor is None else
        [_eta(table, spec, [spec.a, *bs], factor, v) for v in values],
    }


def _tests_note(doc: Mapping[str, Any]) -> str:
    """Return the one-line explanation of what the sign-flip test and McNemar each test."""
    tau = doc["result"]["tau"]
    if doc["cluster"]:
        flip = f"clustered paired differences (whole {doc['cluster']} clusters flip sign)"
    else:
        flip = "paired differences, pair by pair"
    return (
        f"sign-flip tests {flip}; McNemar tests unclustered pass/fail flips "
        f"(value >= {tau:g}), so the two can disagree; the exact sign test counts "
        "unclustered pairs by the sign of B - A."
    )


def _comparison_rows(doc: Mapping[str, Any], c: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Return the (statistic, value) rows of one comparison."""
    r, p = c["result"], c["pairs"]
    eq, sf, cd, fl, mc = (
        r[k] for k in ("equivalence", "sign_flip", "cliffs_delta", "flips", "mcnemar")
    )
    st = c["sign_test"]
    pct = f"{doc['parameters']['confidence'] * 100:g}%"
    kind = "exact" if sf["exact"] else "Monte-Carlo"
    rows = [
        ("pairs",
         f"{p['complete']} complete, {p['incomplete']} incomplete dropped "
         f"({p['only_a']} only in A, {p['only_b']} only in B), "
         f"{p['dropped_excluded']} dropped because a row was excluded "
         f"({p['excluded_a']} in A, {p['excluded_b']} in B)"),
        ("units", f"{r['n_units']} {r['unit']}s"),
        ("mean difference",
         f"{fmt(r['difference']['value'])} {pct} CI {fmt_ci(r['difference']['interval'])}"),
        ("equivalence",
         f"{eq['label']} (margin {eq['margin']:g}; 90% CI "
         f"{fmt_ci(eq['interval90'])}, 95% CI {fmt_ci(eq['interval'])})"),
        ("sign-flip p",
         f"{fmt_p(sf['p_value'])} ({kind}, {sf['permutations']} sign vectors"
         f"{', clustered by ' + doc['cluster'] if doc['cluster'] else ''})"),
        ("Holm p", f"{fmt_p(c['p_holm'])} (family of {doc['holm']['family']}; "
                   f"{'rejects' if c['holm_rejects'] else 'does not reject'} at 0.05)"),
        ("exact sign test p",
         f"{fmt_p(st['p_value'])} ({st['n_up']} up, {st['n_down']} down, {st['ties']} ties)"),
        ("Cliff's delta", f"{fmt(cd['value'])} {pct} CI {fmt_ci(cd['interval'])}"),
        (f"flips @ {r['tau']:g}",
         f"{fl['n01']} fail->pass, {fl['n10']} pass->fail of {fl['n']}; "
         f"net {fmt(fl['net'])}, fraction {fmt(fl['value'])}"),
        ("McNemar p", f"{fmt_p(mc['p_value'])} (pass/fail flips, unclustered)"),
    ]
    ex = c["excess_flip"]
    if ex is not None:
        rows.append(("excess flip rate",
                     ex["why"] or f"{fmt(ex['value'])} {pct} CI {fmt_ci(ex['interval'])} "
                                  f"(conditions {fmt(ex['condition_rate'])}, reruns "
                                  f"{fmt(ex['rerun_rate'])} via {ex['rerun_group']})"))
    return rows


def print_comparison(doc: Mapping[str, Any]) -> None:
    """Render each comparison as a two-column table, then eta squared, exclusions and notes."""
    console = stats_console()
    columns = [
        Column("statistic", kind="name", justify="left", priority=12),
        Column("value", justify="left"),
    ]
    for c in doc["comparisons"]:
        rows = [[Text(name), Text(text)] for name, text in _comparison_rows(doc, c)]
        table, _ = fitted_table(console, columns, rows,
                                title=Text(f"{c['value']}: {c['b']} - {c['a']} (paired)"),
                                show_header=False)
        console.print(table)
    lines = [_tests_note(doc), f"rows read {doc['rows']['read']}, {describe(doc['excluded'])}"]
    for v in doc["variance"] or []:
        sh = v["shares"]
        lines.append(
            f"eta squared of {v['value']} ({v['factors']['a']} x {v['factors']['b']}, "
            f"{v['blocks']} blocks): " + (v["why"] if sh is None else
                                          ", ".join(f"{k} {fmt(x)}" for k, x in sh.items())))
    lines += exclusion_lines(doc)
    for side in ("a", "b"):
        lines.append(f"{side.upper()} ({doc[side]}): {describe(doc['excluded_by_group'][side])}")
    print_lines(console, lines)
