"""`agm experiment run|status|report PLAN.toml --store DIR`: pre-registered stress experiments."""

from __future__ import annotations

from pathlib import Path

import typer

from agentmetrology.archive.report_qualify import store_evidence
from agentmetrology.cli.console import err_console, make_console
from agentmetrology.cli.errors import fail, user_errors
from agentmetrology.cli.evidence_banner import print_banner
from agentmetrology.cli.run_again import Stop, resumes, same_command, stop_on_sigterm
from agentmetrology.experiment import (
    ExperimentPlan,
    analyse,
    load_plan,
    registered,
    run_experiment,
)
from agentmetrology.experiment.arms import arm_table
from agentmetrology.experiment.power import plan_power
from agentmetrology.records.verdict import n_counted
from agentmetrology.report.analysis_files import write_experiment
from agentmetrology.report.terminal.campaign_text import (
    print_problems,
    print_status,
    say,
    unmeasured_notice,
)
from agentmetrology.report.terminal.experiment_tables import (
    print_arms,
    print_dose,
    print_power,
    verdict_counts,
)
from agentmetrology.run.campaign import CampaignConfigError
from agentmetrology.run.campaign.backends import BACKENDS
from agentmetrology.store.enclosing import refuse_inside_store
from agentmetrology.store.opening import open_store

experiment_app = typer.Typer(help="Pre-registered experiments: freeze a plan, run it, judge it.",
                             no_args_is_help=True, add_completion=False,
                             pretty_exceptions_enable=False)


def _plan(file: Path) -> ExperimentPlan:
    try:
        plan = load_plan(file)
    except CampaignConfigError as exc:
        print_problems(err_console, exc)
        n = len([p for p in exc.problems if p.severity == "error"])
        fail(f"{file}: {n} problem{'s' if n != 1 else ''}; nothing was run")
    for w in plan.warnings:
        say(err_console, w, "yellow")
    return plan


@experiment_app.command("run")
def run(ctx: typer.Context,
        plan_file: Path = typer.Argument(..., help="Experiment plan (TOML)."),
        store: Path = typer.Option(..., "--store", help="Evidence store (created if new)."),
        backend: str = typer.Option("inline", "--backend", help="inline | process | ray"),
        workers: int | None = typer.Option(None, "--workers", min=1)) -> None:
    """Freeze the plan in the store (before the first episode), then run what is missing."""
    if backend not in BACKENDS:
        fail(f"unknown backend {backend!r}; use one of: {', '.join(BACKENDS)}")
    plan = _plan(plan_file)
    with user_errors():
        st = open_store(store, create=True)
    stop = Stop()
    try:  # a changed plan, a busy store or a backend that cannot start: UserErrors
        with stop_on_sigterm() as stop, st:
            reg, new, result = run_experiment(st, plan, backend=backend, workers=workers)
    except KeyboardInterrupt:  # as `agm campaign run` says it (cli.run_again)
        fail(resumes(stop, same_command("agm experiment run", ctx)), code=stop.code)
    console = make_console()
    console.print(f"experiment {plan.name}: {'registered' if new else 'resumed'} "
                  f"{reg.campaign} (plan {reg.digest[:12]}); {result.recorded} episodes "
                  "recorded this run", markup=False, emoji=False)
    print_status(console, result.status)
    for name, reasons in result.unmeasured.items():
        say(err_console, unmeasured_notice(name, result.status.targets[name].done, reasons,
                                           "the analysis has no episode of it"), "red")
    if not result.status.complete or result.unmeasured:  # a target measured nothing: not done
        raise typer.Exit(1)


@experiment_app.command("status")
def status(plan_file: Path = typer.Argument(..., help="Experiment plan (TOML)."),
           store: Path = typer.Option(..., "--store", help="Evidence store.")) -> None:
    """Show the registration and the progress of an experiment."""
    plan = _plan(plan_file)
    with user_errors():
        st = open_store(store, readonly=True)
    with st:
        with user_errors():
            reg = registered(st, plan, store)
        s = st.status(reg.campaign)
        arms = arm_table(st, reg.campaign, reg.plan)
    console = make_console()
    console.print(f"experiment {plan.name}: {reg.campaign} (plan {reg.digest[:12]})",
                  markup=False, emoji=False)
    print_status(console, s)
    print_arms(console, arms)
    print_power(console, plan_power(reg.plan))


@experiment_app.command("report")
def report(plan_file: Path = typer.Argument(..., help="Experiment plan (TOML)."),
           store: Path = typer.Option(..., "--store", help="Evidence store."),
           out: Path = typer.Option(..., "--out", help="Output directory.")) -> None:
    """Evaluate the frozen rule on the stored episodes: experiment.json, report.md/html."""
    plan = _plan(plan_file)
    with user_errors():
        refuse_inside_store(out, "report")
        st = open_store(store, readonly=True)
    with st:
        with user_errors():
            reg = registered(st, plan, store)
        if st.status(reg.campaign).total.done == 0:
            fail(f"the store at {store} holds none of the episodes of {reg.campaign}; run "
                 "`agm experiment run` first")
        doc = analyse(st, reg)
    evidence = store_evidence(store)
    if not evidence["qualified"]:  # a qualified analysis stays byte-identical across stores
        doc["evidence"] = evidence
    with user_errors():
        write_experiment(out, doc, evidence)
    print_banner(evidence)
    if "dose" in doc:
        print_dose(make_console(), doc["dose"], doc["decision_rule"])
    # each verdict counted and said with the pairs it rests on (or as insufficient evidence)
    make_console().print(f"wrote {out}/experiment.json, report.md, report.html ("
                         f"{verdict_counts(doc['cells'])}; "
                         f"{n_counted(len(doc['deviations']), 'deviations')})",
                         markup=False, emoji=False)
