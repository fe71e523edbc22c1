"""`agm campaign run|status|validate`: resumable campaigns recorded in an evidence store."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agentmetrology.cli.console import err_console, make_console
from agentmetrology.cli.errors import fail, user_errors
from agentmetrology.cli.run_again import Stop, resumes, same_command, stop_on_sigterm
from agentmetrology.report.terminal.campaign_report import print_run_summary, print_store_status
from agentmetrology.report.terminal.campaign_text import print_problems, say
from agentmetrology.report.terminal.evidence_text import whole_check_notice
from agentmetrology.store.opening import open_store
from agentmetrology.store.qualify import banner
from agentmetrology.store.status import grader_totals
from agentmetrology.store.status_memo import campaign_view

if TYPE_CHECKING:
    from agentmetrology.run.campaign.ray_cluster import RayOptions

# What only `run` and `validate` use (the campaign runner, its backends, Ray, progress bars) is
# imported inside them: `agm campaign status` need not load it (start-up time, see
# cli/lazy_commands.py).

campaign_app = typer.Typer(help="Run resumable campaigns into an evidence store.",
                           no_args_is_help=True, add_completion=False,
                           pretty_exceptions_enable=False)


def _load(file: Path) -> Any:
    from agentmetrology.run.campaign import CampaignConfigError, load_campaign

    try:
        config = load_campaign(file)
    except CampaignConfigError as exc:
        print_problems(err_console, exc)
        n = sum(p.severity == "error" for p in exc.problems)
        fail(f"{file}: {n} problem{'s' if n != 1 else ''}; nothing was run")
    for w in config.warnings:
        say(err_console, w.render(config.file), "yellow")
    return config


@campaign_app.command("validate")
def validate(file: Path = typer.Argument(..., help="Campaign TOML file.")) -> None:
    """Check a campaign file and print every problem (exit 2 if any is an error)."""
    from agentmetrology.run.campaign import check_environment

    config = _load(file)
    env = check_environment(config, severity="warning")
    for p in env:
        say(err_console, p.render(config.file), "yellow")
    from agentmetrology.run.campaign.plan import plan_campaign

    plan = plan_campaign(config)
    make_console().print(f"{file}: ok: campaign {config.name!r}, {len(config.targets)} targets, "
                         f"{len(plan.administrations)} administrations (plan "
                         f"{plan.digest[:12]})", markup=False, emoji=False)


@campaign_app.command("run")
def run(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="Campaign TOML file."),
    store: Path = typer.Option(..., "--store", help="Evidence store directory (created if new)."),
    backend: str = typer.Option("inline", "--backend", help="inline | process | ray"),
    workers: int | None = typer.Option(None, "--workers", min=1,
                                       help="Worker processes (process) or task slots (ray)."),
    ray_address: str | None = typer.Option(
        None, "--ray-address", help="ray backend: an existing cluster (HOST:PORT, "
        "ray://HOST:PORT); default $RAY_ADDRESS, else a new local instance on 127.0.0.1."),
    ray_actors: int | None = typer.Option(
        None, "--ray-actors", min=1, help="ray backend: LLM actors (default min(2, CPUs))."),
    ray_concurrency: int | None = typer.Option(
        None, "--ray-concurrency", min=1, help="ray backend: LLM episodes in flight per actor "
        "(default: the campaign's concurrency shared among the actors)."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
    retry: bool = typer.Option(
        False, "--retry-measurement-failures",
        help="Re-measure administrations recorded as measurement failures (infra_error, "
             "cancelled); their episodes are kept as superseded history, cost included."),
) -> None:
    """Run every administration of FILE not yet recorded in the store (resumable)."""
    from agentmetrology.run.campaign import CampaignConfigError, check_environment
    from agentmetrology.run.campaign.backends import BACKENDS
    from agentmetrology.run.campaign.ray_cluster import RayOptions, connect, import_ray

    if backend not in BACKENDS:
        fail(f"unknown backend {backend!r}; use one of: {', '.join(BACKENDS)}")
    config = _load(file)
    env_problems = check_environment(config)
    if env_problems:  # before the store is created: a failed start leaves nothing behind
        print_problems(err_console, CampaignConfigError(config.file, env_problems))
        fail(f"{file}: the environment is not ready; nothing was run")
    if backend != "ray" and (ray_address or ray_actors or ray_concurrency):
        fail("--ray-address, --ray-actors and --ray-concurrency need --backend ray")
    options = RayOptions(address=ray_address, actors=ray_actors, concurrency=ray_concurrency)
    # Before a new store is made: a cluster that cannot be reached (BackendError, a UserError)
    # leaves nothing on disk. With an existing store, run_campaign starts Ray (before it writes
    # anything) only if something is left to run.
    owns_ray = backend == "ray" and not store.exists() and connect(options)
    try:
        result = _run(config, store, backend, workers, options, quiet, retry,
                      same_command("agm campaign run", ctx))
    finally:
        if owns_ray:
            import_ray().shutdown()
    _summary(config, store, result, backend, retry)


def _run(config: Any, store: Path, backend: str, workers: int | None, options: RayOptions,
         quiet: bool, retry: bool, again: str) -> Any:
    """Run the campaign into the store; print one error line (exit 2) for what the user can fix,
    and, when Ctrl-C or SIGTERM stops it, one line saying that `again` resumes it."""
    from agentmetrology.report.terminal.campaign_progress import CampaignBar
    from agentmetrology.run.campaign import CampaignConfigError, run_campaign

    bar = CampaignBar(err_console)
    with user_errors():
        st = open_store(store, create=True)
    stop = Stop()
    try:
        with stop_on_sigterm() as stop, st:
            if quiet:
                return run_campaign(config, st, backend=backend, workers=workers, ray=options,
                                    retry_measurement_failures=retry)
            with bar.progress:
                return run_campaign(config, st, backend=backend, workers=workers, ray=options,
                                    progress=bar.update, retry_measurement_failures=retry)
    except CampaignConfigError as exc:
        print_problems(err_console, exc)
        fail(f"{config.file}: the environment is not ready; nothing was run")
    except KeyboardInterrupt:
        fail(resumes(stop, again), code=stop.code)


def _summary(config: Any, store: Path, result: Any, backend: str, retry: bool) -> None:
    """Print what the run did and the campaign's status; exit 1 if it is not complete or a
    target's episodes are all measurement failures."""
    from agentmetrology.archive.evidence_check import qualify_store

    # what this run appended is checked from the head checked last (in full the first time),
    # as `agm campaign status` does: a large store is not re-read after every run
    _print_banner(qualify_store(store, "ledger", incremental=True, notice=_notice()))
    print_run_summary(make_console(), err_console, config, result, backend, retry)
    if not result.status.complete or result.unmeasured:  # a target measured nothing: not done
        raise typer.Exit(1)


@campaign_app.command("status")
def status(
    store: Path = typer.Option(..., "--store", help="Evidence store directory."),
    campaign: str | None = typer.Option(None, "--campaign", help="Only this campaign."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    full_check: bool = typer.Option(
        False, "--full-check", help="Check the whole ledger, not only what was appended since "
        "the head checked last (the default once a check found the store qualified)."),
) -> None:
    """Show planned, done, failed (agent vs infrastructure), remaining and cost so far."""
    from agentmetrology.archive.evidence_check import qualify_store
    from agentmetrology.archive.score_row import campaign_rows

    with user_errors():
        st = open_store(store)
    with st:
        names = st.campaigns()
        if campaign is not None:
            if campaign not in names:
                fail(f"no campaign {campaign!r} in {store} (have: {', '.join(names) or 'none'})")
            names = [campaign]
        # Memoised while the ledger is unchanged (store/status_memo.py); cells for the text.
        view = campaign_view(st, names, cells=not json_out)
        statuses = view.statuses
        # The cheap check (chain, rows, bindings, blob presence) runs on every status: over
        # what was appended since the head checked last when the chain grew since (store/
        # verify_scope.py), in full otherwise or with --full-check.
        evidence = qualify_store(store, "ledger", incremental=not full_check,
                                 notice=_notice(full_check))
        rows = campaign_rows(st, statuses, evidence) if json_out else []
        graders = grader_totals(st.grader_calls())
    _print_banner(evidence)
    if json_out:
        print(json.dumps({"store": str(store), "campaigns": [s.to_json() for s in statuses],
                          "evidence": evidence, "score_rows": rows, "graders": graders},
                         indent=2, sort_keys=True))
        return
    print_store_status(make_console(), err_console, store, view, graders, evidence)


def _notice(full_check: bool = False) -> Callable[[int], None]:
    """Say on stderr why this status's evidence check reads the whole store (a large one)."""
    return whole_check_notice(err_console, "--full-check" if full_check else
                              "no verified head here to start from; later checks re-read "
                              "only what was appended")


def _print_banner(evidence: dict[str, Any]) -> None:
    """Print the banner of an unqualified store on stderr (the summary and --json alike)."""
    text = banner(evidence)
    if text is not None:
        say(err_console, text, "bold red")


if __name__ == "__main__":
    campaign_app()
