"""`agm audit TARGET`: probe a benchmark's scorer and ownership, write a validity card.

TARGET is any registered environment (`agm envs`) or `bfcl`.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from agentmetrology.audit.env_audit import Progress as AuditProgress
from agentmetrology.audit.env_audit import audit_env, seal
from agentmetrology.audit.output import write_audit
from agentmetrology.audit.registry import AUDIT_TARGETS
from agentmetrology.audit.scorer_override import (
    DEFAULT_TIMEOUT,
    ScorerLoadError,
    UserScorer,
    load_scorer,
)
from agentmetrology.audit.solvability import DEFAULT_BUDGETS
from agentmetrology.audit.store_read import StoreAuditError, StoreEpisodes, read_store
from agentmetrology.audit.target import TaskRef
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.cli.console import err_console, make_console
from agentmetrology.cli.env_cmd import env_arg
from agentmetrology.cli.errors import fail
from agentmetrology.records.canonical import to_plain
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.episode import Episode
from agentmetrology.report.audit_report import render_audit_report
from agentmetrology.report.numberguard import NumberGuardError
from agentmetrology.report.terminal.audit_card import print_audit
from agentmetrology.run.seeds import parse_seeds


@contextmanager
def stage_progress(con: Console) -> Iterator[AuditProgress | None]:
    """Yield a progress callback drawing the audit's stages on `con`, or None off a terminal."""
    if not con.is_terminal:
        yield None  # piped or captured stderr stays clean
        return
    # A short bar leaves the stage's words whole at 80 columns (rich cuts the text first).
    bar = Progress(TextColumn("audit: {task.description}"), BarColumn(bar_width=16),
                   MofNCompleteColumn(), TimeElapsedColumn(), console=con, transient=True)
    with bar:
        task = bar.add_task("starting", total=None)

        def update(stage: str, done: int, total: int) -> None:
            bar.update(task, description=stage, completed=done, total=total, refresh=True)

        yield update


def write_rendered(doc: Any, out: Path, json_out: bool,
                   render: Callable[[Any], tuple[str, str]]) -> dict[str, Path] | None:
    """Render and write an audit's artifacts; return their paths, or None after printing the
    card as JSON (`--json`). A refused report or an unwritable folder ends in one line."""
    try:
        markdown, html = render(doc)
    except NumberGuardError as exc:
        fail(f"report refused by the number guard: {exc}")
    try:
        paths = write_audit(out, doc, markdown, html)
    except OSError as exc:
        fail(f"cannot write the audit into {out}: {exc.strerror or exc}")
    if json_out:
        print(json.dumps(to_plain(doc["card"]), indent=2, sort_keys=True))
        return None
    return paths


def check_writable(out: Path) -> None:
    """Refuse an output folder that cannot be written before any work is done (one line).

    It is probed by creating it and a file in it; what the probe created is removed again, so a
    refused or failed audit leaves nothing behind.
    """
    created = [p for p in (out, *out.parents) if not p.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".agm-write-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        fail(f"cannot write the audit into {out}: {exc.strerror or exc}")
    finally:
        for p in created:  # innermost first
            with contextlib.suppress(OSError):
                p.rmdir()


def _emit(doc: dict[str, Any], out: Path, json_out: bool) -> None:
    paths = write_rendered(doc, out, json_out, render_audit_report)
    if paths is not None:  # a console per audit: its width follows the terminal at print time
        print_audit(make_console(), doc, paths)


BUDGETS_TEXT = ",".join(map(str, DEFAULT_BUDGETS))


def parse_budgets(text: str) -> list[int]:
    """Return the --output-budget list: positive token counts, or fail naming the bad item."""
    budgets = []
    for item in (p.strip() for p in text.split(",")):
        if not item.isdigit() or int(item) <= 0:
            fail(f"--output-budget takes positive token counts separated by commas, e.g. "
                 f"8192,16384 (got {item!r})")
        budgets.append(int(item))
    return sorted(set(budgets))


def _seed_count(text: str) -> int:
    try:
        seeds = parse_seeds(text)
    except ValueError as exc:
        fail(str(exc))
    if seeds != list(range(len(seeds))):
        fail(f"the audit runs seeds 0..N-1: give --seeds 0-{len(seeds) - 1} (got {text!r})")
    if len(seeds) > 100:
        fail("the audit takes at most 100 seeds (--seeds 0-99)")
    return len(seeds)


# Options declared once here, so the command's signature stays a list of names.
OUTPUT_BUDGET = typer.Option(
    BUDGETS_TEXT, "--output-budget",
    help="Output tokens one model response may hold, comma-separated: the solvability stage "
         "flags tasks whose answer does not fit.")
SCORER_TIMEOUT = typer.Option(
    DEFAULT_TIMEOUT, "--scorer-timeout", min=0.001, max=86400.0,
    help="Seconds one call of the --scorer may take; a slower call is killed and INVALID.")


def audit_cmd(
    target: str = typer.Argument(..., help="A registered environment (agm envs) or bfcl."),
    out: Path = typer.Option(None, "--out", help="Output directory (default out/audit-TARGET)."),
    scorer: str = typer.Option(None, "--scorer", help="Replace the shipped scorer with "
                               "FILE.py:function(task_id, seed, submission) -> number."),
    seeds: str = typer.Option("0-4", "--seeds", help="Episode seeds for probes, ownership and "
                                                     "the 2x2: a range from 0, e.g. 0-4."),
    analysis_seed: int = typer.Option(0, "--analysis-seed", min=0,
                                      help="Seed of the bootstrap intervals."),
    category: str = typer.Option("simple_python", "--category",
                                 help="bfcl: category (current or older name, e.g. simple)."),
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
    check_writable(out)
    if target in AUDIT_TARGETS:  # a registered audit target (bfcl), else an environment
        if store is not None:
            fail(f"--store audits recorded episodes of a registered environment, not {target}")
        _audit_named(target, category, limit, out, json_out)
        return
    spec = env_arg(target)
    count = _seed_count(seeds)
    budgets = parse_budgets(output_budget)
    levels = store_levels(spec, store, level or [], campaign or [])
    user = _user_scorer(scorer, scorer_timeout)
    try:
        try:
            env_target = EnvTarget(spec, seeds=count, scorer=user,
                                   scorer_label=user.label if user else None)
        except ValueError as exc:
            fail(str(exc))
        recorded = None if store is None else read_recorded(store, env_target, levels,
                                                            campaign or None)
        with stage_progress(err_console) as progress:
            doc = seal(audit_env(env_target, seed=analysis_seed, progress=progress,
                                 store=recorded, budgets=budgets))
    finally:
        if user is not None:
            user.close()
    if user is not None:
        doc["scorers"]["shipped"]["sha256"] = user.sha256
        doc["scorers"]["shipped"]["timeout_s"] = user.timeout
    _emit(doc, out, json_out)


def _user_scorer(scorer: str | None, timeout: float) -> UserScorer | None:
    """Return the --scorer FILE.py:function loaded in its worker, or None without one."""
    if not scorer:
        return None
    try:
        return load_scorer(scorer, timeout=timeout)
    except ScorerLoadError as exc:
        fail(str(exc))


def _audit_named(name: str, category: str, limit: int | None, out: Path,
                 json_out: bool) -> None:
    """Audit a registered audit target, e.g. bfcl: the Berkeley Function Calling Leaderboard's
    AST checker (optional extra `bfcl`, whose absence is an ImportError said in one line)."""
    from agentmetrology.audit.generic_audit import audit_target

    try:
        named = AUDIT_TARGETS.create(name, category=category, limit=limit)
    except (ImportError, ValueError) as exc:
        fail(str(exc))
    _emit(seal(audit_target(named.target, extra=named.extra)), out, json_out)


def store_levels(spec: EnvSpec, store: Path | None, levels: list[str],
                 campaigns: list[str]) -> list[str] | None:
    """Return the levels to read from the store (None: all); exit 2 on an unknown level."""
    if (levels or campaigns) and store is None:
        fail(f"{'--level' if levels else '--campaign'} selects what is read from --store; "
             "give --store DIR")
    bad = [lv for lv in levels if lv not in spec.levels]
    if bad:
        fail(f"unknown level {bad[0]!r} ({spec.name} has {', '.join(spec.levels)})")
    return list(dict.fromkeys(levels)) or None


def read_recorded(store: Path, target: EnvTarget, levels: list[str] | None,
                  campaigns: list[str] | None) -> StoreEpisodes:
    """Return the store's recorded episodes of the target's environment; exit 2 if unusable."""
    rescore = None
    if target.scorer_kind == "user":
        def rescore(ep: Episode) -> float | None:  # the user's scorer on the stored submission
            return target.score(TaskRef(ep.task, ep.seed), ep.submission, ep.events).value
    try:
        return read_store(store, target.spec, levels, rescore, campaigns)
    except StoreAuditError as exc:
        fail(str(exc))
