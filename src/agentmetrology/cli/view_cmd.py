"""`agm view PATH`: browse a store, an audit dir or an archive audit in a local web page."""

from __future__ import annotations

import logging
from pathlib import Path

import typer

from agentmetrology.archive.report_qualify import read_report
from agentmetrology.cli.errors import fail
from agentmetrology.records.errors import UserError
from agentmetrology.store.reader import StoreReader
from agentmetrology.view.server import DEFAULT_HOST, DEFAULT_PORT, is_loopback, serve
from agentmetrology.view.source import detect_source
from agentmetrology.view.workbench_auth import WorkbenchAuth


def view_cmd(
    path: Path = typer.Argument(..., help="An evidence store, an audit dir (agm audit --out), "
                                          "a diagnose or experiment report --out dir, "
                                          "an archive audit (archive.json or its dir), a "
                                          "tau2-bench or tau-bench results file, or an "
                                          "Inspect .eval log."),
    port: int = typer.Option(DEFAULT_PORT, "--port", min=0, max=65535,
                             help="Port to listen on (0: any free port)."),
    host: str = typer.Option(DEFAULT_HOST, "--host",
                             help="Address to bind; loopback by default, so only this "
                                  "machine can connect."),
    workbench: bool = typer.Option(False, "--workbench",
                                   help="Also serve the operator workbench (a store only, "
                                        "loopback only): the case lifecycle from the browser, "
                                        "every write needing the login URL printed here."),
    report: list[Path] = typer.Option([], "--report",
                                      help="With --workbench: a report directory built from "
                                           "this store (archive audit/regrade, diagnose, "
                                           "experiment report) to list with its "
                                           "qualification and a re-check button; repeatable."),
) -> None:
    """Serve a read-only web viewer of PATH on 127.0.0.1 (the store is never written, unless
    --workbench: then the case lifecycle writes to it, as `agm cases` does)."""
    source = detect_source(path)  # ViewSourceError: one line, exit 2 (a UserError)
    if workbench and source.kind != "store":
        fail(f"--workbench needs an evidence store; {path} is {source.kind}")
    if report and not workbench:
        fail("--report lists reports in the workbench; add --workbench")
    for report_dir in report:
        try:
            read_report(report_dir)  # before serving
        except UserError as exc:
            fail(str(exc))
    if workbench and not is_loopback(host):
        fail(f"--workbench serves on loopback only; {host} is not a loopback address")
    if source.kind == "store":
        StoreReader(source.root).check()  # StoreError (a UserError) for an unreadable ledger
    logging.basicConfig(level=logging.WARNING, format="agm view: %(message)s")
    if not is_loopback(host):
        typer.echo(f"warning: {host} is not a loopback address: anyone who can reach it can "
                   "read this evidence", err=True)
    try:
        serve(source, host, port, announce=lambda line: typer.echo(line, err=True),
              workbench=WorkbenchAuth() if workbench else None, reports=report)
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        fail(f"the viewer stopped: {exc}")
