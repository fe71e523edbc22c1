"""`agm audit inspect TASK` and `agm audit census`: audit Inspect AI tasks' scorers.

The root group resolves `agm audit NAME ...` to this module's app when NAME is one of its
commands (`Lazy.subcommands` in cli/lazy_commands.py); every other `agm audit TARGET` is the
built-in auditor.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

import typer

from agentmetrology.audit.options import check_writable
from agentmetrology.cli.args import finite
from agentmetrology.cli.audit_cmd import unless_interrupted, write_rendered
from agentmetrology.cli.console import err_console, make_console
from agentmetrology.cli.errors import fail, user_errors
from agentmetrology.records.names import compact_slug
from agentmetrology.report.audit_files import write_census
from agentmetrology.report.terminal.inspect_audit import (
    print_census,
    print_inspect,
    print_proposals,
)
from agentmetrology.report.terminal.progress import stage_progress
from agentmetrology.store.enclosing import refuse_inside_store

inspect_app = typer.Typer(name="audit", no_args_is_help=True, add_completion=False,
                          pretty_exceptions_enable=False, rich_markup_mode=None,
                          help="Audit Inspect AI tasks' scorers.")


@inspect_app.callback()
def _group() -> None:
    """Audit Inspect AI tasks' scorers (`inspect TASK`) or many at once (`census`)."""


def emit(doc: dict[str, Any], out: Path, json_out: bool) -> None:
    """Write the four artifacts and print the card, do-nothing verdicts and INVALID reasons."""
    from agentmetrology.report.inspect_report import render_inspect_report

    paths = write_rendered(doc, out, json_out, render_inspect_report)
    if paths is None:
        return
    print_inspect(make_console(), doc, paths)


@inspect_app.command("inspect")
def inspect_cmd(
    task: str = typer.Argument(..., help="An Inspect task: package/task or file.py@task."),
    task_arg: list[str] = typer.Option([], "-T", "--task-arg", help="Task argument key=value "
                                                                  "(repeatable)."),
    limit: int = typer.Option(None, "--limit", min=1, help="Audit the first N samples."),
    judge_model: str = typer.Option(None, "--judge-model", help="Judge model for scorers that "
                                    "call a model (OpenAI-compatible)."),
    base_url: str = typer.Option(None, "--base-url", help="The judge's OpenAI-compatible URL."),
    api_key_env: str = typer.Option(None, "--api-key-env", help="Variable holding the judge's "
                                    "key (default: none for --base-url)."),
    scorer_timeout: float = typer.Option(10.0, "--scorer-timeout", min=0.001, max=86400.0,
                                         callback=finite,
                                         help="Seconds one scorer call may take; a slower "
                                              "call is INVALID."),
    no_empty: bool = typer.Option(False, "--no-empty-trajectory",
                                  help="Skip the do-nothing run of the task's own solver."),
    out: Path = typer.Option(None, "--out", help="Output directory "
                             "(default out/audit-inspect-TASK)."),
    json_out: bool = typer.Option(False, "--json", help="Print the card as JSON."),
    no_sandbox: bool = typer.Option(False, "--without-sandbox",
                                    help="A task that runs in docker or a sandbox: probe its "
                                         "scorers with forged outputs and no sandbox (no "
                                         "do-nothing run)."),
) -> None:
    """Probe an Inspect task's own scorers with forged outputs; write a validity card."""
    from agentmetrology.inspect_ext.audit.load import load_for_audit, parse_task_args
    from agentmetrology.inspect_ext.audit.target import audit_inspect

    try:
        args = parse_task_args(task_arg)
    except ValueError as exc:
        fail(str(exc))
    from agentmetrology.inspect_ext.audit.run import judge_from_options

    out = out or Path(f"out/audit-inspect-{compact_slug(task, 'task')}")
    with user_errors():
        check_writable(out)
        judge = judge_from_options(judge_model, base_url, api_key_env)
    # Inspect prints on stdout (its "hooks enabled" banner the first time a model is made, a
    # task's own prints): stdout is the card's (--json), so all of that goes to stderr.
    with unless_interrupted(out), stage_progress(err_console) as progress, \
            contextlib.redirect_stdout(sys.stderr):
        if progress is not None:
            err_console.print(f"auditing {task}", markup=False, soft_wrap=True)
            progress("loading the task", 0, 0)
        with user_errors():
            loaded, sandboxless = load_for_audit(task, args, limit, no_sandbox)
        no_empty = no_empty or sandboxless
        doc = audit_inspect(loaded, task_args=args, timeout=scorer_timeout, judge=judge,
                            empty_trajectory=not no_empty, progress=progress)
    emit(doc, out, json_out)


@inspect_app.command("census")
def census_cmd(
    tasks: str = typer.Option(None, "--tasks", help="Comma-separated benchmarks: Inspect task "
                              "specs, builtin:comtrade, builtin:bfcl (default: the census "
                              "list in docs/inspect.md)."),
    limit: int = typer.Option(5, "--limit", min=1, help="Samples per Inspect task."),
    scorer_timeout: float = typer.Option(10.0, "--scorer-timeout", min=0.001, max=86400.0,
                                         callback=finite,
                                         help="Seconds one scorer call may take."),
    worker_timeout: float = typer.Option(900.0, "--task-timeout", min=1.0, max=86400.0,
                                         callback=finite,
                                         help="Seconds one benchmark's whole audit may take."),
    taubench_archive: Path = typer.Option(None, "--taubench-archive", help="A tau-bench run "
                                          "archive (JSON rows) for the do-nothing count."),
    out: Path = typer.Option(Path("out/audit-census"), "--out", help="Output directory."),
) -> None:
    """Audit many benchmarks' scorers; write census.json, report.md/html and census.svg."""
    from agentmetrology.inspect_ext.audit.census import DEFAULT_TASKS, run_census
    from agentmetrology.inspect_ext.audit.census_tau2 import archive_census

    # `--tasks ""` names nothing, as `--tasks ,` does: only a missing option means the list
    specs = ([t.strip() for t in tasks.split(",") if t.strip()] if tasks is not None
             else list(DEFAULT_TASKS))
    if not specs:
        fail("--tasks names no benchmark")
    with user_errors():
        check_writable(out)
    archive = None
    if taubench_archive is not None:
        try:
            archive = archive_census(taubench_archive)
        except (ValueError, KeyError, TypeError) as exc:
            fail(str(exc))
    con = make_console()
    with unless_interrupted(out, "census"), stage_progress(err_console) as bar:

        def progress(spec: str, done: int, total: int) -> None:
            if bar is not None:  # a terminal: one bar, benchmarks done of total, elapsed
                bar(f"census {spec}" if spec != "done" else "census done", done, total)
            elif spec != "done":
                con.print(f"census {done + 1}/{total}: {spec}", markup=False)

        doc = run_census(specs, limit, scorer_timeout, worker_timeout, progress)
    tau2 = doc["tau2"]
    doc["taubench_archive"] = archive
    with user_errors():
        write_census(doc, out)
    print_census(con, doc, tau2, out)


@inspect_app.command("propose")
def propose_cmd(
    what: str = typer.Argument(..., help="ownership (from harness source files) or probes "
                                         "(for an Inspect task, executed against its scorer)."),
    items: list[str] = typer.Argument(..., help="ownership: source files; probes: one task."),
    model: str = typer.Option(..., "--model", help="The proposing model."),
    base_url: str = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint URL."),
    api_key_env: str = typer.Option(None, "--api-key-env", help="Variable holding its key."),
    limit: int = typer.Option(3, "--limit", min=1, help="probes: samples shown to the model."),
    out: Path = typer.Option(Path("out/audit-proposal.json"), "--out", help="Output JSON."),
) -> None:
    """Ask a model for proposals (ownership map, forged outputs); never a verdict."""
    from agentmetrology.audit.proposals import Endpoint, ProposalError, propose, write_proposal
    from agentmetrology.inspect_ext.audit.run import judge_from_options
    from agentmetrology.report.proposal_guard import passes

    with user_errors(), unless_interrupted(out, "proposal"):
        refuse_inside_store(out, "proposals")  # before the model is asked
        judge = judge_from_options(model, base_url, api_key_env)
        assert judge is not None  # --model is required
        try:
            doc = propose(what, Endpoint(judge.model, judge.base_url, judge.api_key), items,
                          limit, passes)
        except ProposalError as exc:
            fail(str(exc))
        write_proposal(out, doc)
    print_proposals(make_console(), what, doc)
    make_console().print(f"proposals (labelled, no verdict changed): {out}", markup=False)
