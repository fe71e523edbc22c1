"""`agm export STORE`: one row per recorded episode as JSON Lines, CSV or Parquet (a tau2-bench
results file instead of a store: one row per simulation)."""

from __future__ import annotations

from pathlib import Path

import typer

from agentmetrology.cli.args import some_names, split_nonempty_names
from agentmetrology.cli.console import err_console
from agentmetrology.cli.errors import fail, user_errors
from agentmetrology.report.terminal.campaign_text import say
from agentmetrology.run.export_write import (
    FORMATS,
    check_destination,
    check_inspect_destination,
    export_store,
    format_for,
)
from agentmetrology.store.qualify import banner


def export_cmd(
    store: Path = typer.Argument(..., metavar="STORE", help="Evidence store directory, or a "
                                                            "tau2-bench results file."),
    fmt: str = typer.Option(None, "--format", metavar="jsonl|csv|parquet|inspect",
                            help="Output format (default: from the --out suffix, else jsonl); "
                                 "inspect writes Inspect AI .eval logs into --out DIR."),
    out: Path | None = typer.Option(None, "--out", metavar="FILE|DIR",
                             help="Output file (default: stdout; Parquet needs a file; "
                                  "inspect a directory)."),
    campaign: str = typer.Option(None, "--campaign", metavar="NAME[,NAME]",
                                 callback=some_names, help="Only these campaigns (default: all)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output file."),
) -> None:
    """Write one row per recorded episode: key fields, termination, every scorer's score,
    status and version, cost and digests; an unmeasured score is null, never 0."""
    if out is not None and str(out) == "-":
        out = None  # `--out -` is stdout, as for every tool that writes a stream
    if fmt == "inspect":
        _export_inspect(store, out, campaign, force)
        return
    if fmt is not None and fmt not in FORMATS:  # the library's list lacks inspect, written here
        fail(f"unknown format {fmt!r}; use one of: {', '.join((*FORMATS, 'inspect'))}")
    names = split_nonempty_names(campaign) if campaign is not None else None
    with user_errors():
        kind = format_for(fmt, out)
        check_destination(kind, out, force=force, source=store)  # before reading it
        if store.is_file():  # a tau2-bench results file: one row per simulation
            # imported here: the archive importers it loads cost a store export ~0.1 s
            from agentmetrology.archive.tau2_export import export_tau2_file

            rows, absent = export_tau2_file(store, kind, out, force=force)
            # what is absent, in the file's own terms: (task, trial) pairs, and whole tasks
            note = (f"; {absent.pairs} of {absent.planned} planned (task, trial) pair(s) have "
                    f"no simulation and are not rows ({absent.tasks_never_run} of "
                    f"{absent.tasks} task(s) have none at all; agm archive audit {store.name})"
                    if absent.pairs else "")
        else:
            rows, unrecorded = export_store(store, names, kind, out, force=force)
            note = (f"; {unrecorded} planned administration(s) have no recorded episode yet "
                    "and are not rows (agm campaign status)" if unrecorded else "")
            _print_banner(store)
    where = "stdout" if out is None else str(out)
    err_console.print(f"exported {rows} episode(s) as {kind} to {where}{note}",
                      markup=False, emoji=False)


def _print_banner(store: Path) -> None:
    """Check the store as `agm campaign status` does (the ledger check, memoised, from the
    head checked last) and print the banner of an unqualified one on stderr: the rows are its
    numbers, and a forged store's rows must not leave without saying so."""
    from agentmetrology.archive.evidence_check import qualify_store
    from agentmetrology.report.terminal.evidence_text import whole_check_notice

    text = banner(qualify_store(store, "ledger", incremental=True, notice=whole_check_notice(
        err_console, "no verified head here to start from; later checks re-read only what was "
                     "appended")), numbers="The rows exported are")
    if text is not None:
        say(err_console, text, "bold red")


def _export_inspect(store: Path, out: Path | None, campaign: str | None, force: bool) -> None:
    """Write the store as Inspect .eval logs, one per campaign × target × level × condition."""
    with user_errors():
        out = check_inspect_destination(store, out)
    try:
        from agentmetrology.inspect_ext.logs.export import export_inspect_logs
    except ImportError as exc:
        fail(f"--format inspect needs inspect-ai ({exc}): pip install 'agentmetrology[inspect]'")
    names = split_nonempty_names(campaign) if campaign is not None else None
    with user_errors():
        written = export_inspect_logs(store, names, out, force=force)
    for w in written:
        unmeasured = f", {w.unmeasured} unmeasured" if w.unmeasured else ""
        err_console.print(f"{w.path}: {w.samples} sample(s){unmeasured}", markup=False,
                          emoji=False, soft_wrap=True)
    err_console.print(f"exported {sum(w.samples for w in written)} episode(s) as "
                      f"{len(written)} Inspect log(s) to {out}", markup=False, emoji=False)
