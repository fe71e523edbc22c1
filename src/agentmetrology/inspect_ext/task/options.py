"""The `-T` arguments of an environment's Inspect task, checked before anything runs.

Plain Python (no inspect-ai), so a bad argument is refused with one line naming what is known,
the way `agm run` refuses it.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.errors import UserError
from agentmetrology.run.episode import canonical_condition
from agentmetrology.run.seeds import parse_seeds


class TaskArgumentError(UserError):
    """Raised for a `-T` argument the environment cannot run (names what it accepts)."""


@dataclass(frozen=True, slots=True)
class EpisodePlan:
    """What one Inspect task of an environment runs: tasks x seeds at one level and condition."""

    environment: str
    tasks: tuple[str, ...]
    seeds: tuple[int, ...]
    level: str
    condition: str
    profile: str
    max_steps: int | None


def joined(value: object) -> str:
    """Return a `-T` value as the text a user typed: Inspect's command line turns `a,b` into the
    list ['a', 'b'] (each item parsed as YAML, so `0,2` becomes [0, 2]); join it back."""
    if isinstance(value, list | tuple):
        return ",".join(str(v).strip() for v in value)
    return str(value)


def parse_task_list(spec: EnvSpec, value: object) -> tuple[str, ...]:
    """Return the task ids of "all", one id or a comma list; raise naming the known tasks."""
    typed = joined(value)
    text = typed.strip()
    if text == "all":
        return tuple(spec.tasks)
    tasks = tuple(t.strip() for t in text.split(","))
    if not text or "" in tasks:
        raise TaskArgumentError(f"-T task={typed!r}: give a task id, a comma list or 'all'; "
                                f"known: {', '.join(spec.tasks)}")
    if len(set(tasks)) != len(tasks):
        raise TaskArgumentError(f"-T task={typed!r} lists a task twice; list each task once")
    for t in tasks:
        try:
            spec.check_task(t)
        except ValueError as exc:
            raise TaskArgumentError(f"-T task: {exc}") from None
    return tasks


def episode_plan(spec: EnvSpec, task: object, seeds: object, level: str, condition: str,
                 profile: str | None, max_steps: int | None) -> EpisodePlan:
    """Return the checked plan of the `-T` arguments, or raise TaskArgumentError."""
    tasks = parse_task_list(spec, task)
    try:
        seed_list = parse_seeds(joined(seeds))
    except ValueError as exc:
        raise TaskArgumentError(f"-T seeds: {exc}") from None
    try:
        spec.ownership_of(level)
        prof = profile or spec.profiles[0]
        spec.check_profile(prof)
        cond = canonical_condition(spec, condition)
    except ValueError as exc:
        raise TaskArgumentError(str(exc)) from None
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int)
                                  or max_steps < 1):
        raise TaskArgumentError(f"-T max_steps={max_steps!r}: a positive integer")
    return EpisodePlan(spec.name, tasks, tuple(seed_list), level, cond, prof, max_steps)
