"""`agm envs|tasks|truth|run|score ENV`: one code path for every registered environment."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from agentmetrology.cli.args import seed_value
from agentmetrology.cli.console import err_console, make_console
from agentmetrology.cli.errors import fail, user_errors
from agentmetrology.cli.run_again import Stop, same_command, stop_on_sigterm
from agentmetrology.cli.run_args import (
    AGENT,
    API_KEY_ENV,
    BASE_URL,
    CONDITION,
    ENV,
    EPOCHS,
    JSON_OUT,
    LEVEL,
    LIMIT,
    MAX_RETRIES,
    MODEL,
    PRICE,
    PROFILE,
    RETRY_FAILURES,
    SEEDS,
    STORE,
    TASK,
    TASK_ARG,
)
from agentmetrology.envs.registry import env_summaries, get_env
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.errors import UserError
from agentmetrology.report.terminal.run_table import print_envs, print_scores, print_tasks
from agentmetrology.report.terminal.run_view import RunView
from agentmetrology.run.adhoc import run_request
from agentmetrology.run.request import make_request
from agentmetrology.run.task_args import (
    as_typed,
    choose_agent,
    merge_task_args,
    parse_task_args,
)
from agentmetrology.scoring.offline import ground_truth, score_directory


def env_arg(name: str) -> EnvSpec:
    """Return the environment called `name`, or exit 2 naming the known ones."""
    try:
        return get_env(name)
    except ValueError as exc:
        fail(str(exc))


def envs_cmd(json_out: bool = typer.Option(False, "--json", help="Print JSON lines.")) -> None:
    """List the registered environments: name, version, tasks, levels, scorers."""
    rows = env_summaries()
    if json_out:
        for r in rows:
            print(json.dumps(r))
        return
    print_envs(make_console(), rows)


def tasks_cmd(env: str = typer.Argument(..., help="Environment, e.g. comtrade (agm envs)."),
              json_out: bool = typer.Option(False, "--json", help="Print JSON lines.")) -> None:
    """List the tasks of an environment."""
    spec = env_arg(env)
    table = spec.display.task_rows if spec.display else None
    rows = table() if table else [{"task_id": t} for t in spec.tasks]
    if json_out:
        for r in rows:
            print(json.dumps(r))
        return
    print_tasks(make_console(), spec.name, rows)


def truth_cmd(
    env: str = typer.Argument(..., help="Environment, e.g. comtrade."),
    task: str = typer.Option(..., "--task", help="Task id, e.g. T3_duplicates."),
    seed: int = typer.Option(0, "--seed", min=0, callback=seed_value,
                              help="Episode seed (ignored by a legacy profile)."),
    profile: str = typer.Option(None, "--profile", help="Data profile (default: the first)."),
) -> None:
    """Print the ground truth of (task, seed) as JSONL (the generator card)."""
    spec = env_arg(env)
    with user_errors():
        note, rows = ground_truth(spec, task, seed, profile)
    if note is not None:
        print(note, file=sys.stderr)
    out = sys.stdout
    for row in rows():
        out.write(json.dumps(row, separators=(",", ":")) + "\n")


def run_cmd(ctx: typer.Context, env: str = ENV, task: str = TASK, seeds: str = SEEDS,
            agent: str = AGENT, model: str = MODEL, level: str = LEVEL, profile: str = PROFILE,
            condition: str = CONDITION, task_args: list[str] = TASK_ARG, limit: int = LIMIT,
            epochs: int = EPOCHS, json_out: bool = JSON_OUT, base_url: str = BASE_URL,
            api_key_env: str = API_KEY_ENV, max_retries: int = MAX_RETRIES,
            store: Path = STORE, retry_failures: bool = RETRY_FAILURES,
            price: str = PRICE) -> None:
    """Run episodes and score each with every scorer of the environment."""
    try:
        params = merge_task_args({"task": task, "seeds": seeds, "level": level,
                                  "profile": profile, "condition": condition},
                                 parse_task_args(task_args))
        chosen = choose_agent(agent, model, base_url, api_key_env)
        request = make_request(
            env, task=params["task"], seeds=str(params["seeds"]), agent=chosen.agent,
            level=str(params["level"]), profile=params["profile"],
            condition=str(params["condition"]), repeats=epochs, limit=limit, store=store,
            base_url=chosen.base_url, api_key_env=chosen.api_key_env, max_retries=max_retries,
            price=price, retry_measurement_failures=retry_failures)
    except ValueError as exc:  # a UserError, or a bad -T / --model spelling
        fail(as_typed(str(exc), model))
    if not request.is_llm and (given := _llm_only_given(
            store=store, base_url=base_url, api_key_env=api_key_env, price=price,
            retry_failures=retry_failures, max_retries=max_retries)) is not None:
        fail(f"{given} applies to llm: agents only, and {request.agent!r} is model-free: drop "
             f"{given} (a model-free run is not recorded; to keep its episodes in a store, "
             "run a campaign: `agm campaign run FILE --store DIR`, e.g. examples/campaign.toml)")
    view = RunView(request, json_out, make_console, err_console)
    stop = Stop()
    try:
        with stop_on_sigterm() as stop, view.progress:
            outcome = run_request(request, view.row)
    except KeyboardInterrupt:
        view.interrupted(stop.said(), same_command("agm run", ctx))
        raise typer.Exit(stop.code) from None
    except UserError as exc:
        fail(str(exc))
    code = view.finish(outcome)
    if code:
        raise typer.Exit(code)


def _llm_only_given(*, store: Path | None, base_url: str | None, api_key_env: str | None,
                    price: str | None, retry_failures: bool, max_retries: int) -> str | None:
    """Return the first llm-only option given (None if none): a model-free run would ignore it,
    and a user who gave --store expects the run recorded there (issue: README's first run)."""
    given = {"--store": store is not None, "--base-url": base_url is not None,
             "--api-key-env": api_key_env is not None, "--price": price is not None,
             "--retry-measurement-failures": retry_failures,
             "--max-retries": max_retries != MAX_RETRIES.default}
    return next((flag for flag, on in given.items() if on), None)


def score_cmd(
    env: str = typer.Argument(..., help="Environment, e.g. comtrade."),
    directory: Path = typer.Argument(..., help="Submission directory (for comtrade: "
                                                "data.jsonl, metadata.json, run.log)."),
    task: str = typer.Option(..., "--task", help="Task id."),
    seed: int = typer.Option(0, "--seed", min=0, callback=seed_value,
                              help="Seed of the episode."),
    profile: str = typer.Option(None, "--profile", help="Data profile (default: the first)."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Score a submission directory with every scorer of the environment."""
    spec = env_arg(env)
    with user_errors():
        scored = score_directory(spec, directory, task, seed, profile)
    if json_out:
        print(json.dumps(scored.doc))
        return
    print_scores(make_console(), f"{directory} on {task} seed {seed} ({scored.profile})", spec,
                 scored.assessments)


__all__ = ["envs_cmd", "run_cmd", "score_cmd", "tasks_cmd", "truth_cmd"]
