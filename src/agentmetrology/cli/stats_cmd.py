"""`agm stats`: reliability statistics over a results table users already have.

Every number comes from `agentmetrology.stats`; this module reads, groups, pairs, and prints.
The JSON document is built first and the rich table is rendered from it, so both agree.
Bad input exits with code 2 and one line on stderr, never a traceback. Rows that could not be
measured (null values, measurement failures) are excluded and counted per group, never scored.
Tables never abbreviate a number: when the terminal is narrow, low-priority columns are left
out and named instead.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any, NoReturn

import numpy as np
import typer
from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from agentmetrology.cli.console import make_console
from agentmetrology.cli.results_table import (
    PairSpec,
    TableError,
    align_pairs,
    check_groups,
    collect_groups,
    collect_pairs,
    describe,
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

# Documented bounds: beyond them the run would take minutes and gigabytes for no gain in
# precision (2000 resamples suffice for a 95% interval, 10000 for 99%).
MAX_RESAMPLES = 1_000_000
MAX_DRAWS = 1_000_000

FileArg = Annotated[
    str, typer.Argument(help="Results file (.csv .tsv .jsonl .json .parquet), or - for stdin.")
]
ValueOpt = Annotated[
    str, typer.Option("--value", help="Numeric column; a dotted path for nested JSON fields.")
]
AnalysisSeedOpt = Annotated[
    int | None,
    typer.Option(
        "--analysis-seed", help="Seed of the bootstrap and permutation draws [default: 0]."
    ),
]
# Deprecated spelling of --analysis-seed, kept working but hidden: in `agm`, seed flags name
# episode seeds, so the analysis seed has its own name.
OldSeedOpt = Annotated[int | None, typer.Option("--seed", hidden=True)]
ResamplesOpt = Annotated[
    int, typer.Option("--resamples", help=f"Bootstrap resamples (at most {MAX_RESAMPLES:,}).")
]
ConfidenceOpt = Annotated[float, typer.Option("--confidence", help="Interval confidence level.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document instead.")]


def _fail(message: object) -> NoReturn:
    """Print one line on stderr and exit with status 2 (bad input)."""
    text = " ".join(str(message).split())  # one line, whatever the message held
    typer.echo(f"agm stats: error: {text}", err=True)
    raise typer.Exit(code=2)


def _emit_json(doc: dict[str, Any]) -> None:
    """Print a JSON document (NaN never appears: undefined numbers are null)."""
    typer.echo(json.dumps(doc, indent=2, sort_keys=True, allow_nan=False))


def _check_limits(resamples: int, draws: int | None = None) -> None:
    """Raise TableError when --resamples or --draws exceed their documented bounds."""
    if resamples > MAX_RESAMPLES:
        raise TableError(
            f"--resamples {resamples} is above the limit of {MAX_RESAMPLES:,}; "
            "2000 (the default) is enough for a 95% interval, 10000 for 99%"
        )
    if draws is not None and draws > MAX_DRAWS:
        raise TableError(
            f"--draws {draws} is above the limit of {MAX_DRAWS:,}; "
            "100000 (the default) gives p-values to about 0.001"
        )


def _analysis_seed(analysis_seed: int | None, old_seed: int | None) -> int:
    """Return the analysis seed (default 0), honouring the deprecated --seed spelling."""
    if old_seed is None:
        return 0 if analysis_seed is None else analysis_seed
    if analysis_seed is not None and analysis_seed != old_seed:
        raise TableError(
            f"--seed {old_seed} and --analysis-seed {analysis_seed} disagree; "
            "use --analysis-seed only (--seed is deprecated)"
        )
    return old_seed


def _warn_deprecated_seed(old_seed: int | None) -> None:
    """Tell the user, after the output, that --seed is now --analysis-seed."""
    if old_seed is not None:
        sys.stdout.flush()
        typer.echo("agm stats: warning: --seed is deprecated; use --analysis-seed", err=True)


@contextmanager
def _guarded() -> Iterator[None]:
    """Turn every way bad input can fail into one line and exit status 2."""
    try:
        # Overflow is detected and reported by the statistics themselves; numpy's warnings
        # would only add lines on stderr.
        with np.errstate(over="ignore", invalid="ignore"):
            yield
    except (TableError, ValueError, OverflowError) as exc:
        _fail(exc)
    except RecursionError:
        _fail("the input is nested too deeply to read; flatten the rows")
    except MemoryError:
        _fail("ran out of memory; lower --resamples (or --draws), or split the input")


# --------------------------------------------------------------------------- table layout

P_FLOOR = 1e-4  # p-values below this print as "< 1e-4" (JSON keeps the number)


def stats_console() -> Console:
    """Return the stdout console; an explicit COLUMNS sets the width even when piped."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) >= 20:
        return Console(highlight=False, width=int(columns))
    return make_console()


def fmt(value: float | None, digits: int = 3) -> str:
    """Format a number for a table: fixed point, scientific beyond 1e6; None shows as a dash."""
    if value is None:
        return "-"
    if abs(value) >= 1e6:
        return f"{value:.{digits}e}"
    return f"{value:.{digits}f}"


def fmt_ci(interval: Sequence[float] | None) -> str:
    """Format an interval as [lo, hi]."""
    return "-" if interval is None else f"[{fmt(interval[0])}, {fmt(interval[1])}]"


def fmt_p(p: float | None) -> str:
    """Format a p-value to 4 decimals, never as 0.0000: below 1e-4 it prints as '< 1e-4'."""
    if p is None:
        return "-"
    return "< 1e-4" if p < P_FLOOR else f"{p:.4f}"


@dataclass(frozen=True)
class Column:
    """A table column: `priority` orders which columns go first when space runs out."""

    header: str
    kind: str = "number"  # "number" never folds inside a token; "name" may fold
    justify: str = "right"
    priority: int = 10
    droppable: bool = False


def _tokens(text: str) -> list[str]:
    """Return the whitespace-separated tokens of a cell (the units that must not split)."""
    return text.split() or [""]


def _needs(column: Column, cells: list[Text]) -> tuple[int, int]:
    """Return (minimum, natural) content width of a column."""
    texts = [column.header, *(c.plain for c in cells)]
    natural = max(cell_len(line) for t in texts for line in t.splitlines() or [""])
    header_word = max(cell_len(w) for w in _tokens(column.header))
    if column.kind == "number":
        longest = max(cell_len(w) for c in cells for w in _tokens(c.plain)) if cells else 1
        return max(header_word, longest), natural
    # Names may fold (never end in an ellipsis); keep 12 cells of them unless they are shorter.
    return min(natural, 12), natural


# Box-drawn first; when that does not fit, the same table without vertical rules (2 cells
# between columns instead of 3), and only then are low-priority columns left out.
_STYLES: tuple[dict[str, Any], ...] = (
    {},
    {
        "box": box.SIMPLE_HEAD,
        "show_edge": False,
        "padding": (0, 1),
        "collapse_padding": True,
        "pad_edge": False,
    },
)


def _overhead(console: Console, style: Mapping[str, Any], k: int) -> int:
    """Return the cells a table style adds around k columns (rules and padding)."""
    probe = Table(**style)
    for _ in range(k):
        probe.add_column(width=1)
    return console.measure(probe).maximum - k


def fitted_table(
    console: Console,
    columns: Sequence[Column],
    rows: Sequence[Sequence[Text]],
    **table_args: Any,
) -> tuple[Table, list[str]]:
    """Return a rich Table fitted into the console width, and the headers of columns left out."""
    width = console.width
    cells = [[row[i] for row in rows] for i in range(len(columns))]
    needs = [_needs(col, col_cells) for col, col_cells in zip(columns, cells, strict=True)]
    keep = list(range(len(columns)))

    def fits(style: Mapping[str, Any]) -> bool:
        return sum(needs[i][0] for i in keep) + _overhead(console, style, len(keep)) <= width

    style = next((st for st in _STYLES if fits(st)), _STYLES[-1])
    # Leave out the lowest-priority droppable columns until every kept minimum fits.
    while not fits(style):
        droppable = [i for i in keep if columns[i].droppable]
        if not droppable:
            break
        keep.remove(min(droppable, key=lambda i: (columns[i].priority, -i)))
    widths = {i: needs[i][0] for i in keep}
    spare = width - _overhead(console, style, len(keep)) - sum(widths.values())
    content = [max((cell_len(c.plain) for c in col_cells), default=0) for col_cells in cells]

    def wraps(i: int) -> int:
        """0 for names, 1 for cells that would wrap (e.g. an interval), 2 for headers only."""
        return 0 if columns[i].kind == "name" else 1 if content[i] > widths[i] else 2

    # Spare cells go first to names and wrapped cells, then to headers, by priority.
    for i in sorted(keep, key=lambda i: (wraps(i), -columns[i].priority, i)):
        grow = max(0, min(spare, needs[i][1] - widths[i]))
        widths[i] += grow
        spare -= grow
    table = Table(**style, **table_args)
    for i in keep:
        col = columns[i]
        table.add_column(col.header, justify=col.justify, width=widths[i], overflow="fold")  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*(row[i] for i in keep))
    dropped = [columns[i].header for i in range(len(columns)) if i not in keep]
    return table, dropped


def _print_lines(console: Console, lines: Sequence[str]) -> None:
    """Print plain lines (never markup: names come from the user's file)."""
    for line in lines:
        console.print(Text(line))


def _exclusion_lines(doc: Mapping[str, Any]) -> list[str]:
    """Return one line per exclusion reason and coercion, so no row disappears silently."""
    lines = []
    for reason, info in doc["excluded"]["by_reason"].items():
        numbers = ", ".join(str(n) for n in info["lines"])
        more = " ..." if info["count"] > len(info["lines"]) else ""
        noun = "row" if info["count"] == 1 else "rows"
        text = f"  {reason}: {info['count']} {noun} (line(s) {numbers}{more})"
        if info.get("details"):
            text += "; " + ", ".join(f"{n} {d}" for d, n in info["details"].items())
        lines.append(text)
    for reason, info in doc["coerced"]["by_reason"].items():
        numbers = ", ".join(str(n) for n in info["lines"])
        more = " ..." if info["count"] > len(info["lines"]) else ""
        lines.append(f"coerced {info['count']} value(s): {reason} (line(s) {numbers}{more})")
    return lines


def _group_name(group: Mapping[str, str]) -> str:
    """Return 'agent=llm, task=t2' for a group key."""
    return ", ".join(f"{k}={v}" for k, v in group.items())


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
    _check_limits(resamples)
    groups = split_names(group, "--group")
    table = read_results(file)
    table.require([value, *groups])
    collected = collect_groups(table, value, groups)
    usable = {key: values for key, values in collected.values.items() if values}
    if not usable:
        raise TableError(
            f"no row of {table.source} has a usable {value!r} "
            f"({describe(collected.excluded.to_dict())})"
        )
    rows = reliability_table(
        usable, tau=tau, alpha=alpha, confidence=confidence, resamples=resamples, seed=seed
    )
    none = {"count": 0, "by_reason": {}}
    out_rows = []
    for row in rows:
        entry = row.summary.to_dict()
        entry["group"] = dict(zip(groups, row.key, strict=True))
        entry["rank_mean"], entry["rank_worst"] = row.rank_mean, row.rank_worst
        excluded = collected.by_group.get(row.key)
        entry["excluded"] = excluded.to_dict() if excluded else none
        out_rows.append(entry)
    # A group whose every row was excluded still appears, with its exclusions, never as a 0.
    without = [
        {
            "group": dict(zip(groups, key, strict=True)),
            "excluded": collected.by_group[key].to_dict(),
        }
        for key in sorted(collected.values)
        if not collected.values[key]
    ]
    return {
        "command": "stats summarize",
        "source": table.source,
        "format": table.fmt,
        "value": value,
        "group_by": groups,
        "parameters": {
            "tau": tau,
            "alpha": alpha,
            "analysis_seed": seed,
            "resamples": resamples,
            "confidence": confidence,
        },
        "rows": {
            "read": len(table.rows),
            "used": sum(len(v) for v in usable.values()),
            "excluded": collected.excluded.count,
        },
        "excluded": collected.excluded.to_dict(),
        "coerced": collected.coerced.to_dict(),
        "groups": out_rows,
        "groups_without_values": without,
    }


def _summary_table(doc: Mapping[str, Any], console: Console) -> tuple[Table, list[str]]:
    """Return the summarize table fitted to the console, and the columns left out."""
    params, names = doc["parameters"], doc["group_by"]
    columns = [
        Column("rank mean", priority=8, droppable=True),
        Column("rank worst", priority=12),
        *(Column(name, kind="name", justify="left", priority=11) for name in names),
        Column("n", priority=9, droppable=True),
        Column("mean", priority=12),
        Column("CI", priority=7, droppable=True),
        Column("worst", priority=12),
        Column(f"CVaR@{params['alpha']:g}", priority=6, droppable=True),
        Column(f"Rel@{params['tau']:g}", priority=5, droppable=True),
        Column("gap", priority=4, droppable=True),
    ]
    rows = []
    for g in doc["groups"]:
        moved = g["rank_mean"] != g["rank_worst"]
        rows.append(
            [
                Text(str(g["rank_mean"])),
                Text(str(g["rank_worst"]), style="bold yellow" if moved else ""),
                *(Text(g["group"][name]) for name in names),
                Text(str(g["n"])),
                Text(fmt(g["mean"]["value"])),
                Text(fmt_ci(g["mean"]["interval"])),
                Text(fmt(g["worst"]["value"])),
                Text(fmt(g["cvar"]["value"])),
                Text(fmt(g["reliability"]["value"])),
                Text(fmt(g["gap"]["value"])),
            ]
        )
    conf = f"{params['confidence'] * 100:g}%"
    return fitted_table(
        console,
        columns,
        rows,
        title=Text(f"{doc['value']} by {', '.join(names)} (sorted by mean)"),
        caption=Text(
            f"{conf} percentile bootstrap, {params['resamples']} resamples, "
            f"analysis seed {params['analysis_seed']}"
        ),
    )


def _print_summary(doc: Mapping[str, Any]) -> None:
    """Render the summarize document: the table, then every exclusion per group and reason."""
    console = stats_console()
    table, dropped = _summary_table(doc, console)
    console.print(table)
    rows = doc["rows"]
    lines = [f"rows read {rows['read']}, used {rows['used']}, {describe(doc['excluded'])}"]
    lines += _exclusion_lines(doc)
    for g in doc["groups"]:
        if g["excluded"]["count"]:
            lines.append(f"{_group_name(g['group'])}: {describe(g['excluded'])}")
    for g in doc["groups_without_values"]:
        lines.append(f"{_group_name(g['group'])}: no usable value, {describe(g['excluded'])}")
    if dropped:
        lines.append(
            f"not shown at width {console.width}: {', '.join(dropped)} "
            "(widen the terminal, set COLUMNS, or use --json)"
        )
    _print_lines(console, lines)


@stats_app.command()
def summarize(
    file: FileArg,
    value: ValueOpt,
    group: Annotated[str, typer.Option("--group", help="Column(s) to group by, comma-separated.")],
    tau: Annotated[float, typer.Option("--tau", help="Reliability@tau threshold.")] = 0.9,
    alpha: Annotated[float, typer.Option("--alpha", help="CVaR tail fraction.")] = 0.2,
    analysis_seed: AnalysisSeedOpt = None,
    seed: OldSeedOpt = None,
    resamples: ResamplesOpt = 2000,
    confidence: ConfidenceOpt = 0.95,
    json_output: JsonOpt = False,
) -> None:
    """Per group: n, mean with CI, worst, CVaR, Reliability@tau and the reliability gap."""
    with _guarded():
        doc = build_summary(
            file,
            value,
            group,
            tau=tau,
            alpha=alpha,
            seed=_analysis_seed(analysis_seed, seed),
            resamples=resamples,
            confidence=confidence,
        )
    if json_output:
        _emit_json(doc)
    else:
        _print_summary(doc)
    _warn_deprecated_seed(seed)


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
    _check_limits(resamples, draws)
    table = read_results(file)
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
            "analysis_seed": seed,
            "resamples": resamples,
            "confidence": confidence,
            "draws": draws,
        },
        "rows": {"read": len(table.rows)},
        "excluded": pairs.excluded.to_dict(),
        "excluded_by_group": {"a": pairs.a.excluded.to_dict(), "b": pairs.b.excluded.to_dict()},
        "coerced": pairs.coerced.to_dict(),
        "pairs": pair_counts,
        "result": result.to_dict(),
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
        f"(value >= {tau:g}), so the two can disagree."
    )


def _comparison_rows(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Return the (statistic, value) rows of the compare table."""
    r, p = doc["result"], doc["pairs"]
    eq, sf, cd, fl, mc = (
        r[k] for k in ("equivalence", "sign_flip", "cliffs_delta", "flips", "mcnemar")
    )
    pct = f"{doc['parameters']['confidence'] * 100:g}%"
    kind = "exact" if sf["exact"] else "Monte-Carlo"
    return [
        (
            "pairs",
            f"{p['complete']} complete, {p['incomplete']} incomplete dropped "
            f"({p['only_a']} only in A, {p['only_b']} only in B), "
            f"{p['dropped_excluded']} dropped because a row was excluded "
            f"({p['excluded_a']} in A, {p['excluded_b']} in B)",
        ),
        ("units", f"{r['n_units']} {r['unit']}s"),
        (
            "mean difference",
            f"{fmt(r['difference']['value'])} {pct} CI {fmt_ci(r['difference']['interval'])}",
        ),
        (
            "equivalence",
            f"{eq['label']} (margin {eq['margin']:g}; 90% CI "
            f"{fmt_ci(eq['interval90'])}, 95% CI {fmt_ci(eq['interval'])})",
        ),
        (
            "sign-flip p",
            f"{fmt_p(sf['p_value'])} ({kind}, {sf['permutations']} sign vectors"
            f"{', clustered by ' + doc['cluster'] if doc['cluster'] else ''})",
        ),
        ("Cliff's delta", f"{fmt(cd['value'])} {pct} CI {fmt_ci(cd['interval'])}"),
        (
            f"flips @ {r['tau']:g}",
            f"{fl['n01']} fail->pass, {fl['n10']} pass->fail of {fl['n']}; "
            f"net {fmt(fl['net'])}, fraction {fmt(fl['value'])}",
        ),
        ("McNemar p", f"{fmt_p(mc['p_value'])} (pass/fail flips, unclustered)"),
    ]


def _print_comparison(doc: Mapping[str, Any]) -> None:
    """Render the compare document as a two-column table, then exclusions and notes."""
    console = stats_console()
    rows = [[Text(name), Text(text)] for name, text in _comparison_rows(doc)]
    columns = [
        Column("statistic", kind="name", justify="left", priority=12),
        Column("value", justify="left"),
    ]
    # The value column wraps at spaces; only its tokens (numbers) must fit whole.
    table, _ = fitted_table(
        console,
        columns,
        rows,
        title=Text(f"{doc['value']}: {doc['b']} - {doc['a']} (paired)"),
        show_header=False,
    )
    console.print(table)
    lines = [_tests_note(doc), f"rows read {doc['rows']['read']}, {describe(doc['excluded'])}"]
    lines += _exclusion_lines(doc)
    for side in ("a", "b"):
        lines.append(f"{side.upper()} ({doc[side]}): {describe(doc['excluded_by_group'][side])}")
    _print_lines(console, lines)


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
    analysis_seed: AnalysisSeedOpt = None,
    seed: OldSeedOpt = None,
    resamples: ResamplesOpt = 2000,
    confidence: ConfidenceOpt = 0.95,
    draws: Annotated[
        int, typer.Option("--draws", help=f"Monte-Carlo sign vectors (at most {MAX_DRAWS:,}).")
    ] = 100_000,
    json_output: JsonOpt = False,
) -> None:
    """Paired B - A: difference with CIs, sign-flip p, Cliff's delta, equivalence, flips."""
    with _guarded():
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
            seed=_analysis_seed(analysis_seed, seed),
            resamples=resamples,
            confidence=confidence,
            draws=draws,
        )
    if json_output:
        _emit_json(doc)
    else:
        _print_comparison(doc)
    _warn_deprecated_seed(seed)
