"""One run request (`agm run`): what to run, checked once, for model-free and LLM agents alike.

`make_request` turns what a user typed into a `RunRequest` or raises one `UserError` that names
the option at fault (`--task`, `--agent`, `--base-url`, ...). Everything after it
(`run.adhoc.run_request`) trusts the request. An `llm:MODEL` agent's endpoint, key variable,
retries and prices are checked by the campaign's own target rules and kept as the campaign
`TargetSpec` the run will use, so the rules and the object are the same ones a campaign file
gets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from agentmetrology.agents.llm.policy import parse_agent_spec
from agentmetrology.agents.registry import agent_family
from agentmetrology.envs.registry import get_env
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.errors import UserError
from agentmetrology.records.names import repeated
from agentmetrology.run.campaign.spec import TargetSpec
from agentmetrology.run.episode import canonical_condition
from agentmetrology.run.llm_options import Price, check_llm_target
from agentmetrology.run.seeds import parse_seeds


@dataclass(frozen=True, slots=True)
class RunRequest:
    """A checked run: every (task, seed, repeat) of one agent at one level and condition."""

    environment: str
    tasks: tuple[str, ...]
    seeds: tuple[int, ...]
    agent: str  # a model-free agent of the environment, or "llm:MODEL"
    level: str
    profile: str
    condition: str  # canonical spelling
    repeats: int = 1  # `--epochs K`: every (task, seed) K times, as repeats 0..K-1
    store: Path | None = None  # LLM runs: the evidence store (default ./.agm/store)
    target: TargetSpec | None = None  # LLM runs: the endpoint, key variable, retries, prices
    retry_measurement_failures: bool = False  # LLM runs: measure those episodes again
    limit: int | None = None  # `--limit N`: only the first N (task, seed) samples, as Inspect

    @property
    def spec(self) -> EnvSpec:
        """Return the environment's specification."""
        return get_env(self.environment)

    @property
    def is_llm(self) -> bool:
        """Return True for an `llm:MODEL` agent (run as a resumable campaign in a store)."""
        return self.target is not None

    def samples(self) -> list[tuple[str, int]]:
        """Return the (task, seed) samples in order (task-major), the first `limit` of them."""
        pairs = [(task, seed) for task in self.tasks for seed in self.seeds]
        return pairs if self.limit is None else pairs[:self.limit]

    def episodes(self) -> Iterator[tuple[str, int, int]]:
        """Yield (task, seed, repeat) in the order rows are printed."""
        for task, seed in self.samples():
            for repeat in range(self.repeats):
                yield task, seed, repeat

    @property
    def count(self) -> int:
        """Return how many episodes the request runs."""
        return len(self.samples()) * self.repeats


def make_request(environment: str, *, task: str | None, seeds: str = "0", agent: str = "rule",
                 level: str = "L2", profile: str | None = None, condition: str = "clean",
                 repeats: int = 1, limit: int | None = None, store: Path | None = None,
                 base_url: str | None = None, api_key_env: str | None = None,
                 max_retries: int = 4, price: Price | str | None = None,
                 retry_measurement_failures: bool = False) -> RunRequest:
    """Return the checked request; raise UserError naming the option of the first bad input.

    `limit` keeps the first N (task, seed) samples in task-major order, as Inspect's `--limit`
    keeps the first N samples (repeats are not samples: each kept sample runs `repeats`
    times); `price` is "IN,OUT[,CACHED]" per million tokens (or the
    parsed triple). The endpoint options matter only for an `llm:MODEL` agent.
    """
    spec = _environment(environment)
    tasks = task_names(spec, task)
    seed_list = _seeds(seeds)
    tasks, seed_list, limit = _limited(tasks, seed_list, limit)
    prof = profile or spec.profiles[0]
    _named("--profile", spec.check_profile, prof)
    if level not in spec.levels:
        raise UserError(f"--level: unknown level {level!r}; {spec.name} has: "
                        f"{', '.join(spec.levels)}")
    try:
        cond = canonical_condition(spec, condition)
    except ValueError as exc:
        raise UserError(f"--condition: {exc}") from None
    target = None
    if _is_llm(agent):
        target = check_llm_target(spec, agent, level, base_url=base_url, api_key_env=api_key_env,
                                  max_retries=max_retries, price=price,
                                  episodes=len(tasks) * len(seed_list) * repeats)
        if limit is not None:
            raise UserError(f"--limit {limit} ends task {tasks[-1]!r} part-way through its "
                            f"{len(seed_list)} seeds; an llm: run records a campaign of every "
                            "(task, seed), so give --limit a multiple of the seeds per task, "
                            "or choose them with --task and --seeds")
    elif agent not in spec.agents and agent_family(agent) is None:  # plug-in families run too
        raise UserError(f"--agent: unknown agent {agent!r}; {spec.name} has: "
                        f"{', '.join(spec.agents)} (or llm:MODEL)")
    return RunRequest(spec.name, tuple(tasks), tuple(seed_list), agent, level, prof, cond,
                      repeats, store, target, retry_measurement_failures, limit)


def _is_llm(agent: str) -> bool:
    try:
        return parse_agent_spec(agent) is not None
    except ValueError as exc:  # "llm:" without a model: the message names --agent
        raise UserError(str(exc)) from None


def _environment(name: str) -> EnvSpec:
    try:
        return get_env(name)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def task_names(spec: EnvSpec, text: str | None) -> list[str]:
    """Return the tasks `--task` names ('all' or comma-separated ids), each checked; UserError
    for none, an unknown one, or one listed twice (run twice, it would silently weigh double)."""
    if text is None:
        raise UserError("give the task: --task ID (or -T task=ID), a comma-separated list, "
                        "or 'all'")
    if text == "all":
        return list(spec.tasks)
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise UserError("--task needs a task id, a comma-separated list, or 'all'")
    for t in names:
        _named("--task", spec.check_task, t)
    if len(set(names)) != len(names):
        twice = repeated(names)
        raise UserError(f"--task {text!r} lists {', '.join(twice)} more than once; list each "
                        "task once")
    return names


def _seeds(text: str) -> list[int]:
    try:
        return parse_seeds(text)
    except ValueError as exc:
        raise UserError(f"--seeds: {exc}") from None


def _limited(tasks: list[str], seeds: list[int],
             limit: int | None) -> tuple[list[str], list[int], int | None]:
    """Return the tasks and seeds the first `limit` samples cover, and the limit still needed
    (None when those samples are every (task, seed) of the tasks and seeds returned)."""
    if limit is None:
        return tasks, seeds, None
    if limit < 1:
        raise UserError(f"--limit {limit}: give a number of samples >= 1")
    if limit <= len(seeds):  # part of the first task's seeds
        return tasks[:1], seeds[:limit], None
    whole, rest = divmod(limit, len(seeds))
    kept = tasks[:whole + (1 if rest else 0)]
    return kept, seeds, (limit if rest and len(kept) > whole else None)


def _named(option: str, check: Callable[[str], None], value: str) -> None:
    """Run `check(value)`; re-raise its ValueError as a UserError naming `option`."""
    try:
        check(value)
    except ValueError as exc:
        raise UserError(f"{option}: {exc}") from None
