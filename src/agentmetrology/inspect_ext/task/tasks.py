"""One Inspect task per registered environment, generated from the registry.

`inspect eval agentmetrology/ENV -T task=ID|ID,ID|all -T seeds=0-4 -T level=L2
-T condition=clean -T profile=seeded -T max_steps=N --model PROVIDER/NAME`: the dataset is
task x seed samples (seed and task in each sample's metadata), the solver runs each episode
through our runner with the eval's model as the agent, and the scorers are the environment's.
"""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import MemoryDataset, Sample

from agentmetrology.envs.registry import get_env
from agentmetrology.inspect_ext.task.options import EpisodePlan, TaskArgumentError, episode_plan
from agentmetrology.inspect_ext.task.scorers import environment_scorers
from agentmetrology.inspect_ext.task.solver import episode_solver, sample_metadata
from agentmetrology.records.environment import EnvSpec, Prompts
from agentmetrology.records.errors import UserError


class InspectTaskArgumentError(TaskArgumentError, PrerequisiteError):
    """A bad `-T` argument (or an environment that does not load), which `inspect eval` prints
    as its message instead of a traceback."""

    def __init__(self, message: str) -> None:
        TaskArgumentError.__init__(self, message)
        PrerequisiteError.__init__(self, f"error: {message}")


def sample_id(task_id: str, seed: int) -> str:
    """Return the Inspect sample id of one (task, seed)."""
    return f"{task_id}:s{seed}"


def prompts_of(spec: EnvSpec) -> Prompts:
    """Return the environment's prompts, or raise UserError: an Inspect sample is a prompt."""
    if spec.prompts is None:
        raise UserError(f"environment {spec.name!r} supplies no prompts (EnvSpec.prompts), so "
                        "it has no Inspect task; add a Prompts to its specification")
    return spec.prompts


def plan_samples(spec: EnvSpec, plan: EpisodePlan) -> list[Sample]:
    """Return the task x seed samples of a plan, in task then seed order."""
    steps = plan.max_steps or spec.max_steps
    prompts = prompts_of(spec)
    return [Sample(input=prompts.task_message(spec.tasks[t], plan.level, steps),
                   id=sample_id(t, seed),
                   metadata=sample_metadata(spec.name, t, seed, plan.level, plan.condition,
                                            plan.profile, plan.max_steps))
            for t in plan.tasks for seed in plan.seeds]


def environment_task(name: str, task_id: str = "all", seeds: str | int = "0",
                     level: str | None = None, condition: str = "clean",
                     profile: str | None = None, max_steps: int | None = None) -> Task:
    """Return the Inspect task of environment `name` for the given `-T` arguments."""
    try:
        spec = get_env(name)  # a plug-in that no longer loads says why here
        lv = level or spec.default_level
        plan = episode_plan(spec, task_id, seeds, lv, condition, profile, max_steps)
        prompts = prompts_of(spec)
    except UserError as exc:
        # Inspect prints a PrerequisiteError as its message alone (its private error type).
        raise InspectTaskArgumentError(str(exc)) from None
    return Task(
        dataset=MemoryDataset(plan_samples(spec, plan), name=spec.name),
        solver=episode_solver(), scorer=environment_scorers(spec), version=spec.version,
        metadata={"agentmetrology": {"environment": spec.name, "env_version": spec.version,
                                     "level": plan.level, "condition": plan.condition,
                                     "profile": plan.profile, "tasks": list(plan.tasks),
                                     "seeds": list(plan.seeds),
                                     "scorer_versions": spec.scorer_versions(),
                                     "prompt_version": prompts.version}})


def task_factory(name: str) -> Callable[..., Task]:
    """Return the registered `@task` of environment `name` (Inspect name agentmetrology/NAME)."""

    def make(task: str = "all", seeds: str | int = "0", level: str | None = None,
             condition: str = "clean", profile: str | None = None,
             max_steps: int | None = None) -> Task:
        return environment_task(name, task, seeds, level, condition, profile, max_steps)

    make.__name__ = name
    make.__doc__ = f"The agentmetrology environment {name!r} as an Inspect task."
    return task(name=name)(make)
