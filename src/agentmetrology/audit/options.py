"""The options of `agm audit` checked before any work is done: each bad one is a UserError
naming the option and how to fix it (the command line prints it as one line, exit 2)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from agentmetrology.audit.scorer_override import ScorerLoadError, UserScorer, load_scorer
from agentmetrology.audit.store_read import StoreAuditError, StoreEpisodes, read_store
from agentmetrology.audit.target import TaskRef
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.edges.files import refuse_non_directory
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.episode import Episode
from agentmetrology.records.errors import UserError
from agentmetrology.run.seeds import parse_seeds
from agentmetrology.store.enclosing import refuse_inside_store

MAX_SEEDS = 100  # an audit runs every stage once per seed


def check_writable(out: Path) -> None:
    """Refuse an output folder that cannot be written, or lies inside an evidence store, before
    any work is done.

    It is probed by creating it and a file in it; what the probe created is removed again, so a
    refused or failed audit leaves nothing behind.
    """
    refuse_inside_store(out, "audit")
    refuse_non_directory(out)  # mkdir said only "cannot write ...: File exists"
    created = [p for p in (out, *out.parents) if not p.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".agm-write-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise UserError(f"cannot write the audit into {out}: {exc.strerror or exc}") from exc
    finally:
        for p in created:  # innermost first
            with contextlib.suppress(OSError):
                p.rmdir()


def parse_budgets(text: str) -> list[int]:
    """Return the --output-budget list: positive token counts, sorted, each once."""
    budgets = []
    for item in (p.strip() for p in text.split(",")):
        if not item.isdigit() or int(item) <= 0:
            raise UserError(f"--output-budget takes positive token counts separated by commas, "
                            f"e.g. 8192,16384 (got {item!r})")
        budgets.append(int(item))
    return sorted(set(budgets))


def seed_count(text: str) -> int:
    """Return how many seeds `--seeds` gives: a range from 0, at most MAX_SEEDS."""
    try:
        seeds = parse_seeds(text)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    if seeds != list(range(len(seeds))):
        raise UserError(f"the audit runs seeds 0..N-1: give --seeds 0-{len(seeds) - 1} "
                        f"(got {text!r})")
    if len(seeds) > MAX_SEEDS:
        raise UserError(f"the audit takes at most {MAX_SEEDS} seeds (--seeds 0-{MAX_SEEDS - 1})")
    return len(seeds)


def store_levels(spec: EnvSpec, store: Path | None, levels: list[str],
                 campaigns: list[str]) -> list[str] | None:
    """Return the levels to read from the store (None: all); an unknown level is refused."""
    if (levels or campaigns) and store is None:
        raise UserError(f"{'--level' if levels else '--campaign'} selects what is read from "
                        "--store; give --store DIR")
    bad = [lv for lv in levels if lv not in spec.levels]
    if bad:
        raise UserError(f"unknown level {bad[0]!r} ({spec.name} has {', '.join(spec.levels)})")
    return list(dict.fromkeys(levels)) or None


def user_scorer(scorer: str | None, timeout: float) -> UserScorer | None:
    """Return the --scorer FILE.py:function loaded in its worker, or None without one."""
    if not scorer:
        return None
    try:
        return load_scorer(scorer, timeout=timeout)
    except ScorerLoadError as exc:
        raise UserError(str(exc)) from exc


def read_recorded(store: Path, target: EnvTarget, levels: list[str] | None,
                  campaigns: list[str] | None) -> StoreEpisodes:
    """Return the store's recorded episodes of the target's environment (a UserError if the
    store cannot serve them); a user's scorer rescores each stored submission."""
    rescore = None
    if target.scorer_kind == "user":
        def rescore(ep: Episode) -> float | None:  # the user's scorer on the stored submission
            return target.score(TaskRef(ep.task, ep.seed), ep.submission, ep.events).value
    try:
        return read_store(store, target.spec, levels, rescore, campaigns)
    except StoreAuditError as exc:
        raise UserError(str(exc)) from exc
