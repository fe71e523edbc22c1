"""The environment registry: built-ins by name, third-party environments by entry point.

A third-party package registers an environment with an entry point in the group
`agentmetrology.environments` whose value is a module attribute holding an `EnvSpec` (or a
function returning one), e.g. `myenv = "my_package.spec:SPEC"`. Built-ins are imported only
when first asked for, so `agm --help` does not pay for every environment. `ENV_REGISTRY` is the
registry idiom of every kind picked by name (runtime/registry.py).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from agentmetrology.records.canonical import digest, to_plain
from agentmetrology.records.environment import EnvSpec
from agentmetrology.runtime.registry import BadEntryPointError, Registry, UnknownNameError

ENTRY_POINT_GROUP = "agentmetrology.environments"
BUILTINS: dict[str, str] = {"comtrade": "agentmetrology.envs.comtrade.spec:SPEC",
                             "researchops": "agentmetrology.envs.researchops.spec:SPEC",
                             "permission": "agentmetrology.envs.toolworlds.spec:PERMISSION",
                             "transaction": "agentmetrology.envs.toolworlds.spec:TRANSACTION",
                             "clarification": "agentmetrology.envs.toolworlds.spec:CLARIFICATION"}
# What `agm campaign status` needs of a built-in, known without importing the rest of it (its
# evidence check re-opens the task specifications the store binds; its tables put the outcome
# scorers first; ComtradeBench's environment loads numpy): where its task table lives, the very
# object its EnvSpec's `tasks` is, and the outcome scorers it declares, the names its EnvSpec's
# scorers of kind "outcome" have. tests/envs/test_registry_tasks.py holds both to the specs.
BUILTIN_TASKS: dict[str, str] = {"comtrade": "agentmetrology.envs.comtrade.tasks:TASKS",
                                  "researchops": "agentmetrology.envs.researchops.tasks:TASKS"}
BUILTIN_OUTCOME_SCORERS: dict[str, frozenset[str]] = {
    "comtrade": frozenset({"ground_truth_f1"}), "researchops": frozenset({"task_quality"}),
    **dict.fromkeys(("permission", "transaction", "clarification"), frozenset({"goal"}))}
# The environment a command uses when none is named (campaign and experiment files, the demo,
# adapters), and the environment of every record that names none (stores, plans, episodes,
# campaign files and quick runs written before environments were plug-ins: ComtradeBench was the
# only one). The one place outside its folder that names it; the store below this layer hands
# such records up with an empty name, and `environment_or_default` reads them.
DEFAULT_ENVIRONMENT = "comtrade"


def environment_or_default(name: object) -> str:
    """Return the environment a record names, or DEFAULT_ENVIRONMENT when it names none."""
    return str(name or DEFAULT_ENVIRONMENT)


class UnknownEnvironmentError(UnknownNameError):
    """Raised for an environment name no built-in, registration or entry point provides."""


class BadEnvironmentError(BadEntryPointError):
    """Raised when an entry point does not lead to a usable EnvSpec."""


def _checked(name: str, obj: object) -> EnvSpec:
    """Return the EnvSpec `obj` is (or a function returns), or raise BadEnvironmentError."""
    if callable(obj) and not isinstance(obj, EnvSpec):
        obj = obj()
    if not isinstance(obj, EnvSpec):
        raise BadEnvironmentError(f"environment {name!r} ({ENV_REGISTRY.target(name)}) is a "
                                  f"{type(obj).__name__}, not an EnvSpec")
    if obj.name != name:
        raise BadEnvironmentError(f"entry point {name!r} leads to an environment named "
                                  f"{obj.name!r}; the names must match")
    return obj


ENV_REGISTRY: Registry[EnvSpec] = Registry(
    "environment", group=ENTRY_POINT_GROUP, hint=" (run `agm envs`)",
    error=UnknownEnvironmentError, bad=BadEnvironmentError, check=_checked)
for _name, _target in BUILTINS.items():
    ENV_REGISTRY.add_lazy(_name, _target)


def _place(name: str) -> int | None:
    """Return where a built-in is listed (the order of BUILTINS), None for any other name."""
    if name not in BUILTINS:
        return None
    listed = ENV_REGISTRY.names(plugins=False)
    return sum(1 for b in list(BUILTINS)[:list(BUILTINS).index(name)] if b in listed)


def register(spec: EnvSpec) -> EnvSpec:
    """Register an environment in this process (tests, notebooks), in place of any other of
    that name (a built-in replaced keeps its place in the list); return it."""
    ENV_REGISTRY.remove(spec.name)
    return ENV_REGISTRY.add(spec.name, spec, at=_place(spec.name))


def unregister(name: str) -> None:
    """Forget an environment registered in this process (a built-in comes back, in its
    place)."""
    ENV_REGISTRY.remove(name)
    if name in BUILTINS:
        ENV_REGISTRY.add_lazy(name, BUILTINS[name], at=_place(name))


def env_names() -> list[str]:
    """Return every environment name: built-ins, registrations, then entry points (sorted)."""
    return ENV_REGISTRY.names()


def get_env(name: str) -> EnvSpec:
    """Return the environment called `name`, or raise UnknownEnvironmentError naming them all."""
    return ENV_REGISTRY.get(name)


def _builtin(name: str) -> bool:
    """Whether `name` is a built-in that no registration in this process replaced."""
    return name in BUILTINS and ENV_REGISTRY.target(name) == BUILTINS[name]


def env_tasks(name: str) -> Mapping[str, Any]:
    """Return the task table of environment `name` (a built-in's without importing the rest of
    it, unless a registration in this process replaced the built-in)."""
    where = BUILTIN_TASKS.get(name)
    if where is None or not _builtin(name):
        return get_env(name).tasks
    module, _, attr = where.partition(":")
    tasks: Mapping[str, Any] = getattr(importlib.import_module(module), attr)
    return tasks


def outcome_scorers(name: str) -> frozenset[str]:
    """Return the names of the outcome scorers environment `name` declares (a built-in's
    without importing it, unless a registration in this process replaced the built-in)."""
    if name in BUILTIN_OUTCOME_SCORERS and _builtin(name):
        return BUILTIN_OUTCOME_SCORERS[name]
    return frozenset(s.name for s in get_env(name).scorers if s.kind == "outcome")


def task_spec_digest(task: str, profile: str, environment: str = DEFAULT_ENVIRONMENT) -> str:
    """Return the digest of a task's specification under a profile (KeyError: no such task)."""
    return digest({"environment": environment, "profile": profile,
                   "task": to_plain(env_tasks(environment)[task])})


def env_summaries() -> list[dict[str, Any]]:
    """Return one row per registered environment: name, version, tasks, levels, profiles,
    scorers, agents and description (a broken third-party entry point: its name and error)."""
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
    return rows
