"""`agm audit TARGET`: probe a benchmark's scorer and ownership, write a validity card.

TARGET is any registered environment (`agm envs`) or `bfcl`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import typer

from agentmetrology.audit.env_audit import audit_env, seal
from agentmetrology.audit.options import (
    check_writable,
    parse_budgets,
    read_recorded,
    seed_count,
    store_levels,
    user_scorer,
)
from agentmetrology.audit.registry import AUDIT_TARGETS
from agentmetrology.audit.scorer_override import DEFAULT_TIMEOUT
from agentmetrology.audit.solvability import DEFAULT_BUDGETS
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.cli.args import finite, seed_value
from agentmetrology.cli.console import err_console, make_console
from agentmetrology.cli.env_cmd import env_arg
from agentmetrology.cli.errors import fail, user_errors
from agentmetrology.records.canonical import to_plain
from agentmetrology.records.environment import EnvSpec
from agentmetrology.report.audit_files import write_files
from agentmetrology.report.audit_report import render_audit_report
from agentmetrology.report.terminal.audit_card import print_audit
from agentmetrology.report.terminal.progress import stage_progress


@contextlib.contextmanager
def unless_interrupted(out: Path, what: str = "audit") -> Iterator[None]:
    """End the user's Ctrl-C (KeyboardInterrupt) inside in one line and exit code 130, as
    `agm campaign run` does: no cell it cut short reaches a report, and none is written (an
    audit's files are written all at once or not at all: audit.output)."""
    try:
        yield
    except KeyboardInterrupt:
        fail(f"interrupted: no {what} was written to {out}; run the same command to start "
             "again", code=130)


def write_rendered(doc: Any, out: Path, json_out: bool,
                   render: Callable[[Any], tuple[str, str]]) -> dict[str, Path] | None:
    """Render and write an audit's artifacts; return their paths, or None after printing the
    card as JSON (`--json`). A refused report or an unwritable folder ends in one line."""
    with user_errors(), unless_interrupted(out):
        paths = write_files(doc, out, render)
    if json_out:
        print(json.dumps(to_plain(doc["card"]), indent=2, sort_keys=True))
        return None
    return paths


def _emit(doc: dict[str, Any], out: Path, json_out: bool) -> None:
    paths = write_rendered(doc, out, json_out, render_audit_report)
    if paths is not None:  # a console per audit: its width follows the terminal at print time
        print_audit(make_console(), doc, paths)


BUDGETS_TEXT = ",".join(map(str, DEFAULT_BUDGETS))


# Options declared once here, so the command's signature stays a list of names.
OUTPUT_BUDGET = typer.Option(
    BUDGETS_TEXT, "--output-budget",
    help="Output tokens one model response may hold, comma-separated: the solvability stage "
         "flags tasks whose answer does not fit.")
SCORER_TIMEOUT = typer.Option(
    DEFAULT_TIMEOUT, "--scorer-timeout", min=0.001, max=86400.0, callback=finite,
    help="Seconds one call of the --scorer may take; a slower call is killed and INVALID.")


def audit_cmd(
    target: str = typer.Argument(..., help="A registered environment (agm envs) or bfcl."),
    out: Path = typer.Option(None, "--out", help="Output directory (default out/audit-TARGET)."),
    scorer: str = typer.Option(None, "--scorer", help="Replace the shipped scorer with "
                               "FILE.py:function(task_id, seed, submission) -> number."),
    seeds: str = typer.Option("0-4", "--seeds", help="Episode seeds for probes, ownership and "
                                                     "the 2x2: a range from 0, e.g. 0-4."),
    analysis_seed: int = typer.Option(0, "--analysis-seed", min=0, callback=seed_value,
                                      help="Seed of the bootstrap intervals."),
    category: str = typer.Option(None, "--category", help="bfcl: category (current or older "
                                 "name, e.g. simple; default simple_python)."),
    limit: int = typer.Option(None, "--limit", min=1, help="bfcl: audit the first N entries."),
    scorer_timeout: float = SCORER_TIMEOUT,
    json_out: bool = typer.Option(False, "--json", help="Print the card as JSON."),
    store: Path = typer.Option(None, "--store", help="An evidence store: its recorded "
                               "episodes of TARGET join non-degeneracy, the 2x2 and the spectrum "
                               "(read, never rerun)."),
    level: list[str] = typer.Option(None, "--level", help="With --store: read only this level's "
                                    "episodes (repeatable; default all)."),
    campaign: list[str] = typer.Option(None, "--campaign", help="With --store: read only this "
                                       "campaign's episodes (repeatable; default all)."),
    output_budget: str = OUTPUT_BUDGET,
) -> None:
    """Audit a benchmark with zero model calls; writes audit.json, card.json and reports.

    Inspect AI tasks: `agm audit inspect TASK`, `agm audit census`, `agm audit propose`
    (each has its own --help; docs/inspect.md).
    """
    out = out or Path(f"out/audit-{target}")
    with user_errors(), unless_interrupted(out):
        check_writable(out)  # the options are checked before any work is done
        if target in AUDIT_TARGETS:  # a registered audit target (bfcl), else an environment
            if store is not None:
                fail(f"--store audits recorded episodes of a registered environment, not "
                     f"{target}")
            if scorer:  # ignored, the card would license the shipped checker as if yours
                fail(f"--scorer replaces the shipped scorer of a registered environment; "
                     f"{target} audits its own checker: drop --scorer")
            doc = _audit_named(target, category or "simple_python", limit)
        else:
            spec = env_arg(target)
            bfcl_only = [o for o, v in (("--category", category), ("--limit", limit))
                         if v is not None]
            if bfcl_only:  # silently ignored before: the audit ran as if they were not given
                fail(f"{' and '.join(bfcl_only)} apply to `agm audit bfcl` only; an "
                     "environment's audit takes --seeds: drop them")
            doc = _audit_env(spec, seeds, analysis_seed, scorer, scorer_timeout, store,
                             level or [], campaign or [], output_budget)
    _emit(doc, out, json_out)


def _audit_env(spec: EnvSpec, seeds: str, analysis_seed: int, scorer: str | None,
               scorer_timeout: float, store: Path | None, level: list[str],
               campaign: list[str], output_budget: str) -> dict[str, Any]:
    """Audit a registered environment (with the user's --scorer, if given); return the sealed
    document."""
    count, budgets = seed_count(seeds), parse_budgets(output_budget)
    levels = store_levels(spec, store, level, campaign)
    user = user_scorer(scorer, scorer_timeout)
    try:
        try:
            env_target = EnvTarget(spec, seeds=count, scorer=user,
                                   scorer_label=user.label if user else None)
        except ValueError as exc:
            fail(str(exc))
        recorded = None if store is None else read_recorded(store, env_target, levels,
                                                            campaign or None)
        with stage_progress(err_console) as progress:
            doc = audit_env(env_target, seed=analysis_seed, progress=progress,
                            store=recorded, budgets=budgets)
    finally:
        if user is not None:
            user.close()
    return seal(doc)


def _audit_named(name: str, category: str, limit: int | None) -> dict[str, Any]:
    """Audit a registered audit target, e.g. bfcl: the Berkeley Function Calling Leaderboard's
    AST checker (optional extra `bfcl`, whose absence is an ImportError said in one line)."""
    from agentmetrology.audit.generic_audit import audit_target

    try:
        named = AUDIT_TARGETS.create(name, category=category, limit=limit)
    except (ImportError, ValueError) as exc:
        fail(str(exc))
    return seal(audit_target(named.target, extra=named.extra))
