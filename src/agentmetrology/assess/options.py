"""The options of `agm assess` checked before anything runs: which executions `--agent` runs,
or that `--store` (recorded episodes, never re-run) is not given options only a run has.

Every refusal is a UserError saying which options clash and what to give instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.errors import UserError
from agentmetrology.run.episode import canonical_condition
from agentmetrology.run.request import task_names
from agentmetrology.run.seeds import parse_seeds

DEFAULT_SEEDS = "0-9"
DEFAULT_LEVEL = "L2"


@dataclass(frozen=True, slots=True)
class Executions:
    """The model-free executions `agm assess --agent` runs."""

    seeds: list[int]
    agent: str
    level: str
    profile: str
    condition: str


def task_list(spec: EnvSpec, task: str) -> list[str]:
    """Return the tasks `--task` names ('all' or comma-separated ids), each checked, as `agm
    run` reads them (none, or one listed twice, is refused: it was assessed twice)."""
    return task_names(spec, task)


def check_recorded(agent: str | None, sweep_seed: int | None,
                   run_options: dict[str, str | None]) -> None:
    """Refuse with --store the options that choose executions to run (`run_options` maps each
    such option, e.g. --seeds, to its value or None)."""
    if sweep_seed is not None:
        raise UserError("--sweep runs executions: give --agent, not --store")
    if agent is not None:
        raise UserError("--agent runs executions; --store assesses recorded ones: give one of "
                        "them")
    given = [f for f, v in run_options.items() if v is not None]
    if given:
        raise UserError(f"{', '.join(given)} choose the executions --agent runs; --store "
                        "assesses the recorded episodes as they were run: drop "
                        f"{'it' if len(given) == 1 else 'them'} (select with --campaign or "
                        "--task)")


def executions(spec: EnvSpec, agent: str | None, seeds: str | None, level: str | None,
               profile: str | None, condition: str | None, *, campaign: str | None,
               sweep_seed: int | None, masks: list[str]) -> Executions:
    """Return the executions to run, each option checked against the environment."""
    if campaign is not None:
        raise UserError("--campaign needs --store")
    if sweep_seed is not None and not masks:
        raise UserError("--sweep masks trajectories: give the evidence to withhold with "
                        "--mask PATH")
    if agent is None:
        raise UserError("give --agent (a model-free agent to run) or --store (recorded "
                        "episodes)")
    # An option given empty (`--seeds "$SEEDS"` with SEEDS unset) is refused as `agm run`
    # refuses it, never read as absent: the default seeds would be assessed in its place.
    seed_list = parse_seeds(DEFAULT_SEEDS if seeds is None else seeds)
    prof = spec.profiles[0] if profile is None else profile
    spec.check_profile(prof)
    cond = canonical_condition(spec, "clean" if condition is None else condition)
    if agent not in spec.agents:
        raise UserError(f"unknown agent {agent!r}; {spec.name} has: {', '.join(spec.agents)}")
    return Executions(seed_list, agent, DEFAULT_LEVEL if level is None else level, prof, cond)
