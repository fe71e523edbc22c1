"""The module Inspect's `inspect_ai` entry point names: it registers our tasks and metrics.

Importing it registers one task per environment the registry knows (built-ins, entry-point
plug-ins, and ones registered in this process before the import) and the reliability metrics.
Names are namespaced by the package, as Inspect does for extensions: `agentmetrology/comtrade`,
`agentmetrology/worst_case`.
"""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai import Task

from agentmetrology.envs.registry import env_names
from agentmetrology.inspect_ext.task.metrics import bootstrap_ci, cvar, reliability, worst_case
from agentmetrology.inspect_ext.task.solver import episode_solver
from agentmetrology.inspect_ext.task.task_end import UnmeasuredReport
from agentmetrology.inspect_ext.task.tasks import task_factory

TASKS: dict[str, Callable[..., Task]] = {name: task_factory(name) for name in env_names()}

__all__ = ["TASKS", "UnmeasuredReport", "bootstrap_ci", "cvar", "episode_solver", "reliability",
           "worst_case"]
