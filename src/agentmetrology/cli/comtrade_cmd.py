"""`agm tasks|truth|run|score comtrade`: the ComtradeBench commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from statistics import fmean
from typing import Any

import typer
from rich.table import Table

from agentmetrology.agents.comtrade.registry import agent_names, make_agent
from agentmetrology.agents.scaffolds.ownership import LEVELS
from agentmetrology.cli.args import parse_seeds, split_names
from agentmetrology.cli.console import make_console
from agentmetrology.cli.errors import fail
from agentmetrology.envs.comtrade import PROFILES, TASKS, generate_rows, generator_seed, get_task
from agentmetrology.envs.comtrade.tasks import UnknownTaskError
from agentmetrology.run.comtrade import (
    GT_FIELDS,
    ScoredEpisode,
    assessment_fields,
    run_one,
    score_submission,
)
from agentmetrology.scoring.submission import SubmissionDirError, read_submission_dir

console = make_console()
tasks_app = typer.Typer(help="List the tasks of an environment.", no_args_is_help=True)
truth_app = typer.Typer(help="Print ground truth (the generator card).", no_args_is_help=True)
run_app = typer.Typer(help="Run episodes and score them.", no_args_is_help=True)
score_app = typer.Typer(help="Score a submission directory.", no_args_is_help=True)


@tasks_app.command("comtrade")
def tasks_comtrade(json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """The ComtradeBench task table."""
    rows = [{"task_id": t.task_id, **t.query.as_dict(), "page_size": t.page_size,
             "budget": t.budget, "rows": t.rows, "pages": t.total_pages, "family": t.family,
             "description": t.description} for t in TASKS.values()]
    if json_out:
        for r in rows:
            print(json.dumps(r))
        return
    table = Table(title="ComtradeBench tasks")
    for col in ("task_id", "query", "page_size", "budget", "rows", "pages", "family"):
        table.add_column(col, justify="right" if col in ("page_size", "budget", "rows",
                                                         "pages") else "left")
    for r in rows:
        q = f"{r['reporter']}/{r['partner']}/{r['flow']}/{r['hs']}/{r['year']}"
        table.add_row(str(r["task_id"]), q, str(r["page_size"]), str(r["budget"]),
                      str(r["rows"]), str(r["pages"]), str(r["family"]))
    console.print(table)


def _check_profile(profile: str) -> None:
    if profile not in PROFILES:
        fail(f"unknown profile {profile!r}; use one of: {', '.join(PROFILES)}")


def _check_task(task: str) -> None:
    try:
        get_task(task)
    except UnknownTaskError as exc:
        fail(str(exc))


@truth_app.command("comtrade")
def truth_comtrade(
    task: str = typer.Option(..., "--task", help="Task id, e.g. T3_duplicates."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed (ignored by the legacy profile)."),
    profile: str = typer.Option("seeded", "--profile", help="seeded | legacy"),
) -> None:
    """Print the ground-truth rows of (task, seed) as JSONL; the generator seed goes to stderr."""
    _check_task(task)
    _check_profile(profile)
    print(f"# generator seed {generator_seed(task, seed, profile)}", file=sys.stderr)  # type: ignore[arg-type]
    out = sys.stdout
    for row in generate_rows(task, seed, profile):  # type: ignore[arg-type]
        out.write(json.dumps(row, separators=(",", ":")) + "\n")


def _tasks_arg(task: str) -> list[str]:
    if task == "all":
        return list(TASKS)
    names = split_names(task)
    for t in names:
        _check_task(t)
    if not names:
        fail("--task needs a task id, a comma-separated list, or 'all'")
    return names


def _seeds_arg(text: str) -> list[int]:
    try:
        return parse_seeds(text)
    except ValueError as exc:
        fail(str(exc))


@run_app.command("comtrade")
def run_comtrade(
    task: str = typer.Option(..., "--task", help="Task id, comma-separated ids, or 'all'."),
    seeds: str = typer.Option("0", "--seeds", help="Seeds: 0-9, 3 or 1,4,7."),
    agent: str = typer.Option("rule", "--agent", help="rule | l1:RULE | scripted:PROFILE"),
    level: str = typer.Option("L2", "--level", help="Scaffold level: L0 | L1 | L2."),
    profile: str = typer.Option("seeded", "--profile", help="seeded | legacy"),
    condition: str = typer.Option("clean", "--condition",
                                  help="clean | stress:escalating | stress:constant | "
                                       "stress:dose=X"),
    json_out: bool = typer.Option(False, "--json", help="One JSON line per episode."),
    base_url: str = typer.Option(None, "--base-url",
                                 help="llm agents: OpenAI-compatible endpoint, e.g. "
                                      "http://127.0.0.1:8000/v1"),
    api_key_env: str = typer.Option(None, "--api-key-env",
                                    help="llm agents: environment variable holding the key"),
    max_retries: int = typer.Option(4, "--max-retries", min=0, max=20,
                                    help="llm agents: retries per request on 429/5xx/timeouts"),
    store: Path = typer.Option(None, "--store",
                               help="llm agents: evidence store (default ./.agm/store)"),
) -> None:
    """Run episodes, score each with ground-truth F1 and the shape judge, print a table."""
    tasks = _tasks_arg(task)
    seed_list = _seeds_arg(seeds)
    _check_profile(profile)
    if level not in LEVELS:
        fail(f"unknown level {level!r}; use one of: {', '.join(LEVELS)}")
    if agent.startswith("llm:"):
        run_llm_episodes(agent, tasks, seed_list, level, profile, condition, base_url,
                         api_key_env, json_out, max_retries, store)
        return
    try:
        policy = make_agent(agent)
    except ValueError as exc:
        fail(str(exc))
    if level not in policy.levels:
        fail(f"agent {agent!r} acts only at {', '.join(policy.levels)}; choose --level "
             f"{policy.levels[0]}")
    results: list[ScoredEpisode] = []
    for t in tasks:
        for s in seed_list:
            try:
                scored = run_one(t, s, make_agent(agent), level, profile, condition)  # type: ignore[arg-type]
            except ValueError as exc:
                fail(str(exc))
            if json_out:
                print(json.dumps(scored.row()), flush=True)
            results.append(scored)
    if not json_out:
        _print_runs(results)


def run_llm_episodes(agent: str, tasks: list[str], seeds: list[int], level: str, profile: str,
                     condition: str, base_url: str | None, api_key_env: str | None,
                     json_out: bool, max_retries: int, store: Path | None) -> None:
    """Run an `llm:MODEL` agent as a resumable one-target campaign in an evidence store."""
    from agentmetrology.run.adhoc import QuickRun, run_quick
    from agentmetrology.run.campaign import CampaignConfigError
    from agentmetrology.store import StoreBusyError, StorePathError

    run = QuickRun(agent, tuple(tasks), tuple(seeds), level, profile, condition, base_url,
                   api_key_env, max_retries)
    try:
        root, rows = run_quick(run, store)
    except (CampaignConfigError, StoreBusyError, StorePathError, ValueError) as exc:
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    except OSError as exc:
        fail(f"cannot open the evidence store at {store or '.agm/store'}: "
             f"{exc.strerror or exc}")
    if json_out:
        for row in rows:
            print(json.dumps(row), flush=True)
        return
    table = Table(title=f"{agent} at {level} (recorded in {root}, campaign {run.name})")
    for col in ("task", "seed", "termination", "requests", "rows", "GT F1", "judge", "cost"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["task"], str(r["seed"]), r["termination"], str(r["requests_used"]),
                      str(r["rows_submitted"]), _num(r["ground_truth"]["f1"]),
                      _num(r["judge"]["total"], 1), _num(r["cost"], 4))
    console.print(table)


def _print_runs(results: list[ScoredEpisode]) -> None:
    table = Table(title="ComtradeBench episodes (ground-truth F1 beside the shape judge)")
    for col in ("task", "seed", "agent", "level", "termination", "requests", "rows", "GT F1",
                "recall", "precision", "judge"):
        table.add_column(col)
    for r in (x.row() for x in results):
        gt, j = r["ground_truth"], r["judge"]
        table.add_row(r["task"], str(r["seed"]), r["agent"], r["level"], r["termination"],
                      str(r["requests_used"]), str(r["rows_submitted"]), _num(gt["f1"]),
                      _num(gt["recall"]), _num(gt["precision"]),
                      j["status"] if j["status"] == "INVALID" else _num(j["total"], 1))
    console.print(table)


def _num(x: object, digits: int = 3) -> str:
    return f"{x:.{digits}f}" if isinstance(x, int | float) else "—"


@score_app.command("comtrade")
def score_comtrade(
    directory: Path = typer.Argument(..., help="Directory with data.jsonl, metadata.json, "
                                                "run.log."),
    task: str = typer.Option(..., "--task", help="Task id."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the episode."),
    profile: str = typer.Option("seeded", "--profile", help="seeded | legacy"),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Score a submission directory with both scorers."""
    _check_task(task)
    _check_profile(profile)
    try:
        sub = read_submission_dir(directory)
    except (SubmissionDirError, OSError) as exc:
        fail(str(exc))
    if not any((directory / name).exists() for name in ("data.jsonl", "metadata.json",
                                                          "run.log")):
        fail(f"{directory} holds none of data.jsonl, metadata.json, run.log; point at a "
             "submission directory")
    gt, judge = score_submission(sub, task, seed, profile)
    gt_doc: dict[str, Any] = {**assessment_fields(gt, GT_FIELDS), "reasons": list(gt.reasons)}
    breakdown: dict[str, Any] = dict(judge.components)
    doc = {
        "task": task, "seed": seed, "profile": profile, "submission_sha256": sub.digest,
        "ground_truth": gt_doc,
        "judge": {"status": judge.status, "total": judge.score, "breakdown": breakdown,
                  "reasons": list(judge.reasons)},
    }
    if json_out:
        print(json.dumps(doc))
        return
    table = Table(title=f"{directory} on {task} seed {seed} ({profile})")
    table.add_column("scorer")
    table.add_column("status")
    table.add_column("score")
    table.add_column("details")
    table.add_row("ground-truth F1", gt.status, _num(gt.score),
                  ", ".join(f"{k}={v}" for k, v in gt_doc.items()
                            if k not in ("f1", "status", "reasons")))
    table.add_row("shape judge", judge.status, _num(judge.score, 1),
                  ", ".join(f"{k}={_num(v, 2)}" for k, v in breakdown.items()))
    console.print(table)
    for reason in [*gt.reasons, *judge.reasons]:
        console.print(f"  - {reason}")


def demo_table(seeds: int = 10) -> None:
    """Print every scripted profile at L2 on T3, T4, T5, T6, T8: GT F1 beside the judge."""
    tasks = ("T3_duplicates", "T4_rate_limit_429", "T5_server_error_500", "T6_page_drift",
             "T8_mixed_faults")
    table = Table(title=f"Scripted profiles at L2 on {len(tasks)} tasks x {seeds} seeds: "
                        "ground truth vs shape judge")
    for col in ("agent", "GT F1 mean", "GT F1 worst", "judge mean (0-100)", "judge worst"):
        table.add_column(col)
    for name in (n for n in agent_names() if n.startswith("scripted:")):
        f1s, totals = [], []
        for t in tasks:
            for s in range(seeds):
                r = run_one(t, s, name, "L2")
                # Scripted submissions are always readable; a None would be INVALID, not 0.
                if r.ground_truth.score is not None:
                    f1s.append(r.ground_truth.score)
                if r.judge.score is not None and r.judge.status != "INVALID":
                    totals.append(r.judge.score)
        table.add_row(name, f"{fmean(f1s):.3f}", f"{min(f1s):.3f}", f"{fmean(totals):.1f}",
                      f"{min(totals):.1f}")
    console.print(table)
