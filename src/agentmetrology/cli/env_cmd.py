"""`agm envs|tasks|truth|run|score ENV`: one code path for every registered environment."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from agentmetrology.cli.args import split_names
from agentmetrology.cli.console import make_console
from agentmetrology.cli.errors import fail
from agentmetrology.cli.run_args import (
    choose_agent,
    limit_seeds,
    merge_task_args,
    parse_task_args,
)
from agentmetrology.cli.table_fit import Col, fit_table
from agentmetrology.envs.registry import env_names, get_env
from agentmetrology.records.environment import EnvSpec, Offline
from agentmetrology.run.episode import (
    ScoredEpisode,
    canonical_condition,
    result_row,
    run_episode,
)
from agentmetrology.run.seeds import parse_seeds
from agentmetrology.scoring.episode import score_episode, score_submission

err_console = Console(stderr=True, highlight=False)
PROGRESS_AFTER = 20  # episodes: below this a run takes well under a second


def _print_table(title: str, cols: list[Col], cells: list[list[str]]) -> None:
    # A console per table: its width follows the terminal (or COLUMNS) at print time.
    console = make_console()
    console.print(fit_table(console, title, cols, cells))


def env_arg(name: str) -> EnvSpec:
    """Return the environment called `name`, or exit 2 naming the known ones."""
    try:
        return get_env(name)
    except ValueError as exc:
        fail(str(exc))


def _check(fn: Any, *args: Any) -> None:
    try:
        fn(*args)
    except ValueError as exc:
        fail(str(exc))


def envs_cmd(json_out: bool = typer.Option(False, "--json", help="Print JSON lines.")) -> None:
    """List the registered environments: name, version, tasks, levels, scorers."""
    rows: list[dict[str, Any]] = []
    for name in env_names():
        try:
            spec = get_env(name)
        except ValueError as exc:  # a broken third-party entry point: listed, not fatal
            rows.append({"name": name, "error": str(exc)})
            continue
        rows.append({"name": spec.name, "version": spec.version, "tasks": len(spec.tasks),
                     "levels": list(spec.levels), "profiles": list(spec.profiles),
                     "scorers": [f"{s.name} {s.version} ({s.kind})" for s in spec.scorers],
                     "agents": len(spec.agents), "description": spec.description})
    if json_out:
        for r in rows:
            print(json.dumps(r))
        return
    cols = [Col("name", 9), Col("version", 5), Col("tasks", 6, True), Col("levels", 4),
            Col("scorers", 8, wrap=True), Col("description", 2, wrap=True)]
    cells = [[r["name"], r.get("version", "—"), str(r.get("tasks", "—")),
              ",".join(r.get("levels", [])), "; ".join(r.get("scorers", [])),
              r.get("description") or r.get("error", "")] for r in rows]
    _print_table("Environments", cols, cells)


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
    keys = [k for k in rows[0] if k != "description"] if rows else ["task_id"]
    cols = [Col(k, 9 if k == "task_id" else 3,
                all(isinstance(r.get(k), int | float) for r in rows)) for k in keys]
    cells = [[str(r.get(k, "")) for k in keys] for r in rows]
    _print_table(f"{spec.name} tasks", cols, cells)


def truth_cmd(
    env: str = typer.Argument(..., help="Environment, e.g. comtrade."),
    task: str = typer.Option(..., "--task", help="Task id, e.g. T3_duplicates."),
    seed: int = typer.Option(0, "--seed", min=0, help="Episode seed (ignored by a legacy "
                                                      "profile)."),
    profile: str = typer.Option(None, "--profile", help="Data profile (default: the first)."),
) -> None:
    """Print the ground truth of (task, seed) as JSONL (the generator card)."""
    spec = env_arg(env)
    _check(spec.check_task, task)
    prof = profile or spec.profiles[0]
    _check(spec.check_profile, prof)
    offline = spec.offline or Offline()
    if offline.truth is None:
        fail(f"environment {spec.name!r} publishes no ground truth")
    if offline.truth_note:
        print(offline.truth_note(task, seed, prof), file=sys.stderr)
    out = sys.stdout
    for row in offline.truth(task, seed, prof):
        out.write(json.dumps(row, separators=(",", ":")) + "\n")


def _tasks_arg(spec: EnvSpec, task: str) -> list[str]:
    if task == "all":
        return list(spec.tasks)
    names = split_names(task)
    if not names:
        fail("--task needs a task id, a comma-separated list, or 'all'")
    for t in names:
        _check(spec.check_task, t)
    return names


def _seeds_arg(text: str) -> list[int]:
    try:
        return parse_seeds(text)
    except ValueError as exc:
        fail(str(exc))


def run_cmd(
    env: str = typer.Argument(..., help="Environment, e.g. comtrade (agm envs)."),
    task: str = typer.Option(None, "--task", help="Task id, comma-separated ids, or 'all' "
                                                 "(or -T task=...)."),
    seeds: str = typer.Option(None, "--seeds", help="Episode seeds: 0-9, 3 or 1,4,7 "
                                                   "(default 0)."),
    agent: str = typer.Option(None, "--agent", help="A model-free agent of the environment "
                                                   "(e.g. rule, scripted:careful; default "
                                                   "rule) or llm:MODEL."),
    model: str = typer.Option(None, "--model", metavar="PROVIDER/MODEL",
                              help="An LLM as Inspect names it (openai/gpt-4o-mini, "
                                   "anthropic/..., ollama/..., openai-api/SERVICE/...): "
                                   "llm:MODEL on the provider's OpenAI-compatible endpoint."),
    level: str = typer.Option(None, "--level", help="Scaffold level: L0 | L1 | L2 "
                                                   "(default L2)."),
    profile: str = typer.Option(None, "--profile", help="Data profile (default: the first)."),
    condition: str = typer.Option(None, "--condition",
                                  help="clean (default), a stress condition "
                                       "(stress:escalating, stress:constant, stress:dose=X), or "
                                       "either under a mutation: mut:alias, "
                                       "stress:constant+mut:format."),
    task_args: list[str] = typer.Option([], "-T", "--task-arg", metavar="KEY=VALUE",
                                        help="Task argument, repeatable: task, seeds (or seed), "
                                             "level, profile, condition."),
    limit: int = typer.Option(None, "--limit", min=1, metavar="N",
                              help="Run only the first N seeds of each task."),
    epochs: int = typer.Option(1, "--epochs", min=1, max=1000, metavar="K",
                               help="Run each (task, seed) K times, recorded as repeat 0..K-1."),
    json_out: bool = typer.Option(False, "--json", help="One JSON line per episode."),
    base_url: str = typer.Option(None, "--base-url", help="llm: OpenAI-compatible endpoint."),
    api_key_env: str = typer.Option(None, "--api-key-env",
                                    help="llm: environment variable holding the key."),
    max_retries: int = typer.Option(4, "--max-retries", min=0, max=20,
                                    help="llm: retries per request on 429/5xx/timeouts."),
    store: Path = typer.Option(None, "--store", help="llm: evidence store (default "
                                                     "./.agm/store)."),
    retry_failures: bool = typer.Option(False, "--retry-measurement-failures",
                                        help="llm: measure again the episodes recorded as "
                                             "measurement failures."),
    price: str = typer.Option(None, "--price", help="llm: INPUT_PER_M,OUTPUT_PER_M"
                                                    "[,CACHED_PER_M] per million tokens."),
) -> None:
    """Run episodes and score each with every scorer of the environment."""
    spec = env_arg(env)
    try:
        params = merge_task_args({"task": task, "seeds": seeds, "level": level,
                                  "profile": profile, "condition": condition},
                                 parse_task_args(task_args))
        chosen = choose_agent(agent, model, base_url, api_key_env)
    except ValueError as exc:
        fail(str(exc))
    if params["task"] is None:
        fail("give the task: --task ID (or -T task=ID), a comma-separated list, or 'all'")
    tasks = _tasks_arg(spec, str(params["task"]))
    seed_list = limit_seeds(_seeds_arg(str(params["seeds"])), limit)
    level = str(params["level"])
    prof = params["profile"] or spec.profiles[0]
    _check(spec.check_profile, prof)
    if level not in spec.levels:
        fail(f"unknown level {level!r}; {spec.name} has: {', '.join(spec.levels)}")
    try:
        condition = canonical_condition(spec, str(params["condition"]))
    except ValueError as exc:
        fail(str(exc))
    agent = chosen.agent
    if agent.startswith("llm:"):
        from agentmetrology.cli.llm_run import run_llm

        run_llm(spec, agent, tasks, seed_list, level, prof, condition, chosen.base_url,
                chosen.api_key_env, json_out, max_retries, store, retry_failures, price=price,
                epochs=epochs)
        return
    if agent not in spec.agents:
        fail(f"unknown agent {agent!r}; {spec.name} has: {', '.join(spec.agents)} "
             "(or llm:MODEL)")
    policy = spec.agents[agent]()
    if level not in policy.levels:
        fail(f"agent {agent!r} acts only at {', '.join(policy.levels)}; choose --level "
             f"{policy.levels[0]}")
    _run_model_free(spec, tasks, seed_list, agent, level, prof, condition, json_out, epochs)


def _run_model_free(spec: EnvSpec, tasks: list[str], seeds: list[int], agent: str, level: str,
                    profile: str, condition: str, json_out: bool, epochs: int = 1) -> None:
    results: list[ScoredEpisode] = []
    rows: list[dict[str, Any]] = []
    total = len(tasks) * len(seeds) * epochs
    # With --epochs the repeat index is part of every row (and a table column).
    extra = (REPEAT_COLUMN,) if epochs > 1 else ()
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        console=err_console, transient=True,
                        disable=total < PROGRESS_AFTER or not err_console.is_terminal)
    try:
        with progress:
            bar = progress.add_task(f"{spec.name} {agent} {level}", total=total)
            for t in tasks:
                for s in seeds:
                    for r in range(epochs):
                        try:
                            scored = run_one_repeat(spec, t, s, agent, level, profile,
                                                    condition, r)
                        except ValueError as exc:
                            fail(str(exc))
                        row = scored.row()
                        if epochs > 1:
                            row["repeat"] = r
                        if json_out:
                            print(json.dumps(row), flush=True)
                        results.append(scored)
                        rows.append(row)
                        progress.advance(bar)
    except KeyboardInterrupt:
        if not json_out:
            print_rows(spec, rows, f"{spec.name}: {agent} at {level} (interrupted)", extra)
        err_console.print(f"interrupted after {len(results)} of {total} episodes")
        raise typer.Exit(130) from None
    if not json_out:
        print_rows(spec, rows, f"{spec.name}: {agent} at {level}, every scorer side by side",
                   extra)


def run_one_repeat(spec: EnvSpec, task: str, seed: int, agent: str, level: str, profile: str,
                   condition: str, repeat: int) -> ScoredEpisode:
    """Run and score one model-free episode whose key carries `repeat` (an epoch index)."""
    ep = run_episode(spec, task, seed, agent, level, profile=profile, condition=condition,
                     repeat=repeat)
    return ScoredEpisode(spec, ep, profile, score_episode(spec, ep))


def _get(row: dict[str, Any], path: str) -> Any:
    value: Any = row
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def num(x: object, digits: int = 3) -> str:
    """Return a number with `digits` decimals, or an em dash for a missing value."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return "—"
    return f"{x:.{digits}f}"


REPEAT_COLUMN = (Col("repeat", 7, True), "repeat", 0)  # the table column of --epochs runs


def failure_line(row: dict[str, Any]) -> str:
    """Return the line naming a measurement failure's episode (its repeat, with --epochs) and
    why it could not be measured."""
    again = f" repeat {row['repeat']}" if "repeat" in row else ""
    return f"measurement failure: {row['task']} seed {row['seed']}{again}: " \
           f"{row['measurement_failure']}"


def print_rows(spec: EnvSpec, rows: list[dict[str, Any]], title: str,
               extra: tuple[tuple[Col, str, int], ...] = ()) -> None:
    """Print result rows as a table that fits the terminal; measurement failures say why."""
    score_cols = (spec.display.columns if spec.display else ()) or tuple(
        _default_column(s.label) for s in spec.scorers)
    # The agent and level are in the title: they go first when the terminal is narrow.
    last = len(score_cols) - 1
    cols = [Col("task", 9), Col("seed", 8, True), Col("agent", 2), Col("level", 1),
            Col("termination", 7), Col("requests", 3, True),
            *(Col(c.header, 6 if i == 0 else (5 if i == last else 4), True)
              for i, c in enumerate(score_cols)),
            *(c for c, _, _ in extra)]
    failures = [r for r in rows if r.get("measurement_failure")]
    if failures:  # why an episode could not be measured, in the table itself
        cols.append(Col("not measured because", 6, wrap=True))
    cells = []
    for r in rows:
        line = [str(r["task"]), str(r["seed"]), str(r["agent"]), str(r["level"]),
                str(r["termination"]), str(r["requests_used"])]
        for c in score_cols:
            value = _get(r, c.path)
            status = _get(r, c.path.split(".")[0] + ".status")
            line.append(str(status) if value is None and status in ("INVALID", "UNKNOWN")
                        else num(value, c.digits))
        line += [num(_get(r, path), digits) if digits >= 0 else str(_get(r, path) or "—")
                 for _, path, digits in extra]
        if failures:
            line.append(str(r.get("measurement_failure") or ""))
        cells.append(line)
    _print_table(title, cols, cells)
    for r in failures[:5]:
        err_console.print(failure_line(r), markup=False)
    if len(failures) > 5:
        err_console.print(f"... and {len(failures) - 5} more measurement failures", markup=False)


def _default_column(label: str) -> Any:
    from agentmetrology.records.environment import Column

    return Column(label, f"{label}.score")


def score_cmd(
    env: str = typer.Argument(..., help="Environment, e.g. comtrade."),
    directory: Path = typer.Argument(..., help="Submission directory (for comtrade: "
                                                "data.jsonl, metadata.json, run.log)."),
    task: str = typer.Option(..., "--task", help="Task id."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the episode."),
    profile: str = typer.Option(None, "--profile", help="Data profile (default: the first)."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Score a submission directory with every scorer of the environment."""
    spec = env_arg(env)
    _check(spec.check_task, task)
    prof = profile or spec.profiles[0]
    _check(spec.check_profile, prof)
    read = spec.offline.read_submission if spec.offline else None
    if read is None:
        fail(f"environment {spec.name!r} cannot read submissions from a directory")
    try:
        sub = read(directory)
    except (ValueError, OSError) as exc:
        fail(str(exc))
    assessments = score_submission(spec, sub, task, seed, prof)
    doc: dict[str, Any] = {"environment": spec.name, "task": task, "seed": seed,
                           "profile": prof, "submission_sha256": getattr(sub, "digest", None)}
    for s, a in zip(spec.scorers, assessments, strict=True):
        doc[s.label] = {**s.summary(a), "reasons": list(a.reasons)}
    if json_out:
        print(json.dumps(doc))
        return
    cols = [Col("scorer", 9), Col("status", 8), Col("score", 9, True),
            Col("details", 1, wrap=True)]
    cells = [[s.name, a.status, num(a.score), ", ".join(
        f"{k}={num(v, 3) if isinstance(v, float) else v}" for k, v in a.components.items())]
        for s, a in zip(spec.scorers, assessments, strict=True)]
    _print_table(f"{directory} on {task} seed {seed} ({prof})", cols, cells)
    for a in assessments:
        for reason in a.reasons:
            make_console().print(f"  - {a.scorer}: {reason}", markup=False)


def exit_for_failures(rows: list[dict[str, Any]]) -> None:
    """Exit 1 with one line when every episode was a measurement failure."""
    if rows and all(r.get("measurement_failure") for r in rows):
        err_console.print(f"error: none of the {len(rows)} episode(s) could be measured (see the "
                   "reasons above); fix the cause and rerun with --retry-measurement-failures",
                   markup=False)
        raise typer.Exit(1)
    return None


__all__ = ["REPEAT_COLUMN", "envs_cmd", "exit_for_failures", "failure_line", "num", "print_rows",
           "result_row", "run_cmd", "score_cmd", "tasks_cmd", "truth_cmd"]
