"""`agm stats`: reliability statistics over a results table users already have.

This module parses options, asks `agentmetrology.results` for the document (which reads,
groups, pairs and computes), and prints it: the JSON document is built first and the rich table
is rendered from it, so both agree.
Bad input exits with code 2 and one line on stderr, never a traceback. Rows that could not be
measured (null values, measurement failures) are excluded and counted per group, never scored.
Tables never abbreviate a number: when the terminal is narrow, low-priority columns are left
out and named instead.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console

from agentmetrology.cli.args import plain_zero
from agentmetrology.cli.console import make_console
from agentmetrology.edges.display import one_line
from agentmetrology.records.errors import UserError
from agentmetrology.report.terminal.stats_compare import print_comparison
from agentmetrology.report.terminal.stats_format import (
    fmt_p as fmt_p,  # re-exported: callers import it here
)
from agentmetrology.report.terminal.stats_summary import print_summary
from agentmetrology.results import (
    MAX_DRAWS,
    MAX_RESAMPLES,
    ComparisonRequest,
    SummaryRequest,
    build_comparison,
    build_summary,
    choose_analysis_seed,
    parse_range,
    split_column_names,
)
from agentmetrology.stats import DEFAULT_MARGIN

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
# Float options go through plain_zero only: the statistics refuse NaN and ranges themselves,
# in this command's own words (`tau must be in [0, 1], got nan`).
ConfidenceOpt = Annotated[float, typer.Option("--confidence", callback=plain_zero,
                                              help="Interval confidence level.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document instead.")]


def stats_console() -> Console:
    """Return the stdout console; an explicit COLUMNS sets the width even when piped."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) >= 20:
        return Console(highlight=False, emoji=False, width=int(columns))
    return make_console()


def _fail(message: object) -> NoReturn:
    """Print one line on stderr and exit with status 2 (bad input)."""
    typer.echo(f"agm stats: error: {one_line(str(message))}", err=True)
    raise typer.Exit(code=2)


def _emit_json(doc: dict[str, Any]) -> None:
    """Print a JSON document (NaN never appears: undefined numbers are null)."""
    typer.echo(json.dumps(doc, indent=2, sort_keys=True, allow_nan=False))


def _warn_deprecated_seed(old_seed: int | None) -> None:
    """Tell the user, after the output, that --seed is now --analysis-seed."""
    if old_seed is not None:
        sys.stdout.flush()
        typer.echo("agm stats: warning: --seed is deprecated; use --analysis-seed", err=True)


@contextmanager
def _guarded() -> Iterator[None]:
    """Turn every way bad input can fail into one line and exit status 2.

    User errors are printed here rather than by `agm`'s one handler so that they keep the
    `agm stats: error:` prefix this command has always printed.
    """
    try:
        yield
    except UserError as exc:
        _fail(exc)
    except RecursionError:
        _fail("the input is nested too deeply to read; flatten the rows")
    except MemoryError:
        _fail("ran out of memory; lower --resamples (or --draws), or split the input")


@stats_app.command()
def summarize(
    file: FileArg,
    value: ValueOpt,
    group: Annotated[str, typer.Option("--group", help="Column(s) to group by, comma-separated.")],
    tau: Annotated[float, typer.Option("--tau", callback=plain_zero, help="Reliability@tau "
                                       "threshold, a fraction of the column's declared range.")
                   ] = 0.9,
    alpha: Annotated[float, typer.Option("--alpha", callback=plain_zero,
                                         help="CVaR tail fraction.")] = 0.2,
    analysis_seed: AnalysisSeedOpt = None,
    seed: OldSeedOpt = None,
    resamples: ResamplesOpt = 2000,
    confidence: ConfidenceOpt = 0.95,
    json_output: JsonOpt = False,
    score_range: Annotated[str | None, typer.Option(
        "--range", help="LOW,HIGH: the column's range when no scorer declares it.")] = None,
) -> None:
    """Per group: n, mean with CI, worst, CVaR, Reliability@tau and the reliability gap."""
    with _guarded():
        chosen_seed = choose_analysis_seed(analysis_seed, seed)
        request = SummaryRequest(
            source=file,
            value=value,
            group_by=split_column_names(group, "--group"),
            tau=tau,
            alpha=alpha,
            analysis_seed=chosen_seed,
            resamples=resamples,
            confidence=confidence,
            score_range=parse_range(score_range),
        )
        doc = build_summary(request)
    if json_output:
        _emit_json(doc)
    else:
        print_summary(doc, stats_console())
    _warn_deprecated_seed(seed)


# The options of `compare` (kept here so that its signature stays readable).
ValuesOpt = Annotated[
    str, typer.Option("--value", help="Numeric column(s), comma-separated (e.g. scorers); "
                      "a dotted path for nested JSON fields.")
]
CompareGroupOpt = Annotated[
    str, typer.Option("--group", help="Column naming the compared groups.")
]
AOpt = Annotated[str, typer.Option("--a", help="Baseline group A.")]
BOpt = Annotated[str, typer.Option("--b", help="Group(s) B, comma-separated; differences are "
                                   "B - A, Holm over every --value x --b.")]
PairByOpt = Annotated[
    str, typer.Option("--pair-by", help="Column(s) matching A's and B's rows, e.g. task,seed.")
]
ClusterOpt = Annotated[
    str | None, typer.Option("--cluster", help="Resample this column's clusters (e.g. task).")
]
StrataOpt = Annotated[
    str | None, typer.Option("--strata", help="Resample clusters within these strata.")
]
MarginOpt = Annotated[float, typer.Option("--margin", callback=plain_zero,
                                          help="Equivalence margin.")]
FlipTauOpt = Annotated[float, typer.Option("--tau", callback=plain_zero,
                                           help="Pass threshold for flip counts.")]
RangeOpt = Annotated[str | None, typer.Option("--range", help="LOW,HIGH: the value columns' "
                                              "range when no scorer declares it.")]
DrawsOpt = Annotated[
    int, typer.Option("--draws", help=f"Monte-Carlo sign vectors (at most {MAX_DRAWS:,}).")
]
RerunOpt = Annotated[
    str | None, typer.Option("--rerun-of-a", help="Group that reran A identically: gives "
                             "the excess flip rate.")
]
FactorOpt = Annotated[
    str | None, typer.Option("--factor", help="A --pair-by column crossed with the groups "
                             "for eta squared (other pair-by columns are blocks).")
]


@stats_app.command()
def compare(
    file: FileArg,
    value: ValuesOpt,
    group: CompareGroupOpt,
    a: AOpt,
    b: BOpt,
    pair_by: PairByOpt,
    cluster: ClusterOpt = None,
    strata: StrataOpt = None,
    margin: MarginOpt = DEFAULT_MARGIN,
    tau: FlipTauOpt = 0.9,
    analysis_seed: AnalysisSeedOpt = None,
    seed: OldSeedOpt = None,
    resamples: ResamplesOpt = 2000,
    confidence: ConfidenceOpt = 0.95,
    draws: DrawsOpt = 100_000,
    rerun_of_a: RerunOpt = None,
    factor: FactorOpt = None,
    score_range: RangeOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Paired B - A: difference with CIs, sign-flip p (Holm), sign test, Cliff's delta, flips."""
    with _guarded():
        if "," in group:
            raise UserError("--group for compare takes one column")
        request = ComparisonRequest(
            source=file,
            group=group,
            a=a,
            values=split_column_names(value, "--value"),
            bs=split_column_names(b, "--b"),
            pair_by=split_column_names(pair_by, "--pair-by"),
            cluster=cluster,
            strata=strata,
            rerun_of_a=rerun_of_a,
            factor=factor,
            margin=margin,
            tau=tau,
            score_range=parse_range(score_range),
            analysis_seed=choose_analysis_seed(analysis_seed, seed),
            resamples=resamples,
            confidence=confidence,
            draws=draws,
        )
        doc = build_comparison(request)
    if json_output:
        _emit_json(doc)
    else:
        print_comparison(doc, stats_console())
    _warn_deprecated_seed(seed)
