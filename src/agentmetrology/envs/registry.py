"""The environment registry: built-ins by name, third-party environments by entry point.

A third-party package registers an environment with an entry point in the group
`agentmetrology.environments` whose value is a module attribute holding an `EnvSpec` (or a
function returning one), e.g. `myenv = "my_package.spec:SPEC"`. Built-ins are imported only
when first asked for, so `agm --help` does not pay for every environment.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from agentmetrology.records.environment import LEGACY_ENVIRONMENT, EnvSpec
from agentmetrology.records.errors import UserError

ENTRY_POINT_GROUP = "agentmetrology.environments"
BUILTINS: dict[str, str] = {"comtrade": "agentmetrology.envs.comtrade.spec:SPEC",
                             "researchops": "agentmetrology.envs.researchops.spec:SPEC",
                             "permission": "agentmetrology.envs.toolworlds.spec:PERMISSION",
                             "transaction": "agentmetrology.envs.toolworlds.spec:TRANSACTION",
                             "clarification": "agentmetrology.envs.toolworlds.spec:CLARIFICATION"}
# The environment a command uses when none is named (campaign and experiment files, the demo,
# adapters): the one stored records without an environment field were recorded with.
DEFAULT_ENVIRONMENT = LEGACY_ENVIRONMENT
_loaded: dict[str, EnvSpec] = {}
_registered: dict[str, EnvSpec] = {}


class UnknownEnvironmentError(UserError):
    """Raised for an environment name no built-in, registration or entry point provides."""


class BadEnvironmentError(UserError):
    """Raised when an entry point does not lead to a usable EnvSpec."""


def register(spec: EnvSpec) -> EnvSpec:
    """Register an environment in this process (tests, notebooks); return it."""
    _registered[spec.name] = spec
    _loaded.pop(spec.name, None)
    return spec


def unregister(name: str) -> None:
    """Forget an environment registered in this process."""
    _registered.pop(name, None)
    _loaded.pop(name, None)


def _plugin_targets() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def env_names() -> list[str]:
    """Return every environment name: built-ins, registrations, then entry points (sorted)."""
    names = [*BUILTINS, *sorted(set(_registered) - set(BUILTINS))]
    return names + sorted(set(_plugin_targets()) - set(names))


def _load(target: str, name: str) -> EnvSpec:
    module_name, _, attr = target.partition(":")
    try:
        obj: object = importlib.import_module(module_name)
        for part in attr.split(".") if attr else ():
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise BadEnvironmentError(f"environment {name!r} ({target}) cannot be loaded: "
                                  f"{type(exc).__name__}: {exc}") from None
    if callable(obj) and not isinstance(obj, EnvSpec):
        obj = obj()
    if not isinstance(obj, EnvSpec):
        raise BadEnvironmentError(f"environment {name!r} ({target}) is a "
                                  f"{type(obj).__name__}, not an EnvSpec")
    if obj.name != name:
        raise BadEnvironmentError(f"entry point {name!r} leads to an environment named "
                                  f"{obj.name!r}; the names must match")
    return obj


def get_env(name: str) -> EnvSpec:
    """Return the environment called `name`, or raise UnknownEnvironmentError naming them all."""
    if name in _registered:
        return _registered[name]
    if name in _loaded:
        return _loaded[name]
    target = BUILTINS.get(name) or _plugin_targets().get(name)
    if target is None:
        raise UnknownEnvironmentError(f"unknown environment {name!r}; known: "
                                      f"{', '.join(env_names())} (run `agm envs`)")
    spec = _load(target, name)
    _loaded[name] = spec
    return spec
