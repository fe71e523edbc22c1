"""`agm stats`: reliability statistics over a results table users already have.

Every number comes from `agentmetrology.stats`; this module reads, groups, pairs, and prints.
The JSON document is built first and the rich table is rendered from it, so both agree.
Bad input exits with code 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agentmetrology.cli.console import make_console
from agentmetrology.cli.results_table import (
    PairSpec,
    TableError,
    align_pairs,
    check_groups,
    collect_groups,
    collect_pairs,
    read_results,
    split_names,
)
from agentmetrology.stats import DEFAULT_MARGIN, compare_paired, reliability_table

stats_app = typer.Typer(
    name="stats",
    help="Reliability statistics over a results table (CSV, JSONL, or Parquet with pyarrow).",
    no_args_is_help=True,
    add_completion=False,
)


FileArg = Annotated[
    str, typer.Argument(help="Results file (.csv .tsv .jsonl .json .parquet), or - for stdin.")
]
ValueOpt = Annotated[
    str, typer.Option("--value", help="Numeric column; a dotted path for nested JSON fields.")
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Bootstrap / permutation seed.")]
ResamplesOpt = Annotated[int, typer.Option("--resamples", help="Bootstrap resamples.")]
ConfidenceOpt = Annotated[float, typer.Option("--confidence", help="Interval confidence level.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document instead.")]


def _fail(message: object) -> NoReturn:
    """Print one line on stderr and exit with status 2 (bad input)."""
    typer.echo(f"agm stats: error: {message}", err=True)
    raise typer.Exit(code=2)


def _emit_json(doc: dict[str, Any]) -> None:
    """Print a JSON document (NaN never appears: undefined numbers are null)."""
    typer.echo(json.dumps(doc, indent=2, sort_keys=True, allow_nan=False))


def _fmt(value: float | None, digits: int = 3) -> str:
    """Format a number for the table; None (undefined) shows as a dash."""
    return "-" if value is None else f"{value:.{digits}f}"


def _fmt_ci(interval: list[float] | None) -> str:
    """Format an interval as [lo, hi]."""
    return "-" if interval is None else f"[{_fmt(interval[0])}, {_fmt(interval[1])}]"


def _print_exclusions(console: Console, doc: dict[str, Any]) -> None:
    """Print one line per exclusion reason, so no row disappears silently."""
    for reason, info in doc["excluded"]["by_reason"].items():
        lines = ", ".join(str(n) for n in info["lines"])
        more = " ..." if info["count"] > len(info["lines"]) else ""
        text = f"excluded {info['count']} row(s): {reason} (line(s) {lines}{more})"
        console.print(escape(text))


# --------------------------------------------------------------------------- summarize


def build_summary(
    file: str,
    value: str,
    group: str,
    *,
    tau: float = 0.9,
    alpha: float = 0.2,
    seed: int = 0,
    resamples: int = 2000,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """Return the `summarize` JSON document for a results file."""
    groups = split_names(group, "--group")
    table = read_results(file)
    table.require([value, *groups])
    collected, excluded = collect_groups(table, value, groups)
    if not collected:
        raise TableError(f"no row of {table.source} has a numeric {value!r}")
    rows = reliability_table(
        collected, tau=tau, alpha=alpha, confidence=confidence, resamples=resamples, seed=seed
    )
    out_rows = []
    for row in rows:
        entry = row.summary.to_dict()
        entry["group"] = dict(zip(groups, row.key, strict=True))
        entry["rank_mean"], entry["rank_worst"] = row.rank_mean, row.rank_worst
        out_rows.append(entry)
    return {
        "command": "stats summarize",
        "source": table.source,
        "format": table.fmt,
        "value": value,
        "group_by": groups,
        "parameters": {
            "tau": tau,
            "alpha": alpha,
            "seed": seed,
            "resamples": resamples,
            "confidence": confidence,
        },
        "rows": {"read": len(table.rows), "used": sum(len(v) for v in collected.values())},
        "excluded": excluded.to_dict(),
        "groups": out_rows,
    }


def _print_summary(doc: dict[str, Any]) -> None:
    """Render the summarize document as a rich table, worst-case rank beside the mean rank."""
    params = doc["parameters"]
    console = make_console()
    table = Table(
        title=escape(f"{doc['value']} by {', '.join(doc['group_by'])} (sorted by mean)"),
        caption=f"{int(params['confidence'] * 100)}% percentile bootstrap, "
        f"{params['resamples']} resamples, seed {params['seed']}",
    )
    for name in ("rank mean", "rank worst", *doc["group_by"], "n", "mean", "CI", "worst"):
        table.add_column(name, justify="left" if name in doc["group_by"] else "right")
    for name in (f"CVaR@{params['alpha']:g}", f"Rel@{params['tau']:g}", "gap"):
        table.add_column(name, justify="right")
    for g in doc["groups"]:
        moved = g["rank_mean"] != g["rank_worst"]
        table.add_row(
            str(g["rank_mean"]),
            f"[bold yellow]{g['rank_worst']}[/]" if moved else str(g["rank_worst"]),
            *(escape(g["group"][name]) for name in doc["group_by"]),
            str(g["n"]),
            _fmt(g["mean"]["value"]),
            _fmt_ci(g["mean"]["interval"]),
            _fmt(g["worst"]["value"]),
            _fmt(g["cvar"]["value"]),
            _fmt(g["reliability"]["value"]),
            _fmt(g["gap"]["value"]),
        )
    console.print(table)
    console.print(f"rows read {doc['rows']['read']}, used {doc['rows']['used']}")
    _print_exclusions(console, doc)


@stats_app.command()
def summarize(
    file: FileArg,
    value: ValueOpt,
    group: Annotated[str, typer.Option("--group", help="Column(s) to group by, comma-separated.")],
    tau: Annotated[float, typer.Option("--tau", help="Reliability@tau threshold.")] = 0.9,
    alpha: Annotated[float, typer.Option("--alpha", help="CVaR tail fraction.")] = 0.2,
    seed: SeedOpt = 0,
    resamples: ResamplesOpt = 2000,
    confidence: ConfidenceOpt = 0.95,
    json_output: JsonOpt = False,
) -> None:
    """Per group: n, mean with CI, worst, CVaR, Reliability@tau and the reliability gap."""
    try:
        doc = build_summary(
            file,
            value,
            group,
            tau=tau,
            alpha=alpha,
            seed=seed,
            resamples=resamples,
            confidence=confidence,
        )
    except (TableError, ValueError) as exc:
        _fail(exc)
    if json_output:
        _emit_json(doc)
    else:
        _print_summary(doc)


# --------------------------------------------------------------------------- compare


def build_comparison(
    file: str,
    spec: PairSpec,
    *,
    margin: float = DEFAULT_MARGIN,
    tau: float = 0.9,
    seed: int = 0,
    resamples: int = 2000,
    confidence: float = 0.95,
    draws: int = 100_000,
) -> dict[str, Any]:
    """Return the `compare` JSON document for a results file."""
    table = read_results(file)
    optional = [c for c in (spec.cluster, spec.strata) if c]
    table.require([spec.value, spec.group, *spec.pair_by, *optional])
    check_groups(table, spec)
    a_side, b_side, excluded = collect_pairs(table, spec)
    keys, pair_counts = align_pairs(a_side, b_side)
    if not keys:
        raise TableError(
            f"no complete pairs of {spec.a!r} and {spec.b!r} by {','.join(spec.pair_by)} "
            f"({pair_counts['only_a']} only in A, {pair_counts['only_b']} only in B)"
        )
    result = compare_paired(
        [a_side[k][0] for k in keys],
        [b_side[k][0] for k in keys],
        clusters=[a_side[k][1] for k in keys] if spec.cluster else None,
        strata=[a_side[k][2] for k in keys] if spec.strata else None,
        margin=margin,
        tau=tau,
        confidence=confidence,
        resamples=resamples,
        draws=draws,
        seed=seed,
    )
    return {
        "command": "stats compare",
        "source": table.source,
        "format": table.fmt,
        "value": spec.value,
        "group": spec.group,
        "a": spec.a,
        "b": spec.b,
        "difference": "b - a",
        "pair_by": spec.pair_by,
        "cluster": spec.cluster,
        "strata": spec.strata,
        "parameters": {
            "margin": margin,
            "tau": tau,
            "seed": seed,
            "resamples": resamples,
            "confidence": confidence,
            "draws": draws,
        },
        "rows": {"read": len(table.rows)},
        "excluded": excluded.to_dict(),
        "pairs": pair_counts,
        "result": result.to_dict(),
    }


def _print_comparison(doc: dict[str, Any]) -> None:
    """Render the compare document as a two-column rich table."""
    r, p = doc["result"], doc["pairs"]
    console = make_console()
    title = escape(f"{doc['value']}: {doc['b']} - {doc['a']} (paired)")
    table = Table(title=title, show_header=False)
    table.add_column("statistic")
    table.add_column("value")
    eq, sf, cd, fl, mc = (
        r[k] for k in ("equivalence", "sign_flip", "cliffs_delta", "flips", "mcnemar")
    )
    pct = int(doc["parameters"]["confidence"] * 100)
    rows = [
        (
            "pairs",
            f"{p['complete']} complete, {p['incomplete']} incomplete dropped "
            f"({p['only_a']} only in A, {p['only_b']} only in B)",
        ),
        ("units", f"{r['n_units']} {r['unit']}s"),
        (
            "mean difference",
            f"{_fmt(r['difference']['value'])} {pct}% CI {_fmt_ci(r['difference']['interval'])}",
        ),
        (
            "equivalence",
            f"{eq['label']} (margin {eq['margin']:g}; 90% CI "
            f"{_fmt_ci(eq['interval90'])}, 95% CI {_fmt_ci(eq['interval'])})",
        ),
        (
            "sign-flip p",
            f"{_fmt(sf['p_value'], 4)} ({'exact' if sf['exact'] else 'Monte-Carlo'}, "
            f"{sf['permutations']} sign vectors)",
        ),
        ("Cliff's delta", f"{_fmt(cd['value'])} {pct}% CI {_fmt_ci(cd['interval'])}"),
        (
            f"flips @ {r['tau']:g}",
            f"{fl['n01']} fail->pass, {fl['n10']} pass->fail of {fl['n']}; "
            f"net {_fmt(fl['net'])}, fraction {_fmt(fl['value'])}",
        ),
        ("McNemar p", _fmt(mc["p_value"], 4)),
    ]
    for name, text in rows:
        table.add_row(name, text)
    console.print(table)
    _print_exclusions(console, doc)


@stats_app.command()
def compare(
    file: FileArg,
    value: ValueOpt,
    group: Annotated[str, typer.Option("--group", help="Column naming the compared groups.")],
    a: Annotated[str, typer.Option("--a", help="Baseline group A.")],
    b: Annotated[str, typer.Option("--b", help="Group B; differences are B - A.")],
    pair_by: Annotated[
        str, typer.Option("--pair-by", help="Column(s) matching A's and B's rows, e.g. task,seed.")
    ],
    cluster: Annotated[
        str | None, typer.Option("--cluster", help="Resample this column's clusters (e.g. task).")
    ] = None,
    strata: Annotated[
        str | None, typer.Option("--strata", help="Resample clusters within these strata.")
    ] = None,
    margin: Annotated[float, typer.Option("--margin", help="Equivalence margin.")] = DEFAULT_MARGIN,
    tau: Annotated[float, typer.Option("--tau", help="Pass threshold for flip counts.")] = 0.9,
    seed: SeedOpt = 0,
    resamples: ResamplesOpt = 2000,
    confidence: ConfidenceOpt = 0.95,
    draws: Annotated[int, typer.Option("--draws", help="Monte-Carlo sign vectors.")] = 100_000,
    json_output: JsonOpt = False,
) -> None:
    """Paired B - A: difference with CIs, sign-flip p, Cliff's delta, equivalence, flips."""
    try:
        if "," in group:
            raise TableError("--group for compare takes one column")
        spec = PairSpec(
            value=value,
            group=group,
            a=a,
            b=b,
            pair_by=split_names(pair_by, "--pair-by"),
            cluster=cluster,
            strata=strata,
        )
        doc = build_comparison(
            file,
            spec,
            margin=margin,
            tau=tau,
            seed=seed,
            resamples=resamples,
            confidence=confidence,
            draws=draws,
        )
    except (TableError, ValueError) as exc:
        _fail(exc)
    if json_output:
        _emit_json(doc)
    else:
        _print_comparison(doc)
