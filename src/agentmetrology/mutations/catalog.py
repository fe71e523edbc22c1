"""The named, versioned mutations (docs/diagnose.md, "Mutations") and what each touches.

Generic mutations act on the tool protocol and the agent's instructions, so they apply to every
registered environment: `wording`, `alias`, `format`, `misleading` (the positive control) and
`repeat` (the identity, the repeat control). The others change an environment's own settings or
scorer and need a hook the environment supplies (`EnvSpec.mutations`); an environment
without the hook cannot support them, and says so before anything runs.

Mutations are picked by name through `MUTATION_REGISTRY` (runtime/registry.py); a third-party
package adds a hook mutation with an entry point in the group `agentmetrology.mutations` whose
value is a `Mutation` (or a function returning one) of the same name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agentmetrology.runtime.registry import Registry, UnknownNameError, named_instance

Side = Literal["agent_view", "scorer", "environment", "none"]


@dataclass(frozen=True, slots=True)
class Mutation:
    """A mutation: what it changes, whether it has an inverse map, which hook it needs."""

    name: str
    version: str
    side: Side
    description: str
    invertible: bool = False
    hook: bool = False  # needs the environment's own implementation


WORDING_PREFIX = (
    "Before you start: follow every constraint of the task exactly, use only the tools you are "
    "given, and submit exactly once when you are done."
)

BUILTIN_MUTATIONS = (
    Mutation("wording", "1", "agent_view",
             "prepend a fixed instruction that restates the constraints"),
    Mutation("alias", "1", "agent_view",
             "rename every tool, keeping dispatch, arguments and descriptions", invertible=True),
    Mutation("format", "1", "agent_view",
             "reorder the keys of every observation; values unchanged", invertible=True),
    Mutation("misleading", "1", "agent_view",
             "permute tool names among the environment's own names; descriptions stay true "
             "(the positive control)", invertible=True),
    Mutation("rubric", "1", "scorer",
             "change the scorer's component weights and require an evidence mention",
             hook=True),
    Mutation("constraint", "1", "environment",
             "require evidence citation in the final report", hook=True),
    Mutation("proxy_incentive", "1", "environment",
             "raise the visible incentive on tasks with a proxy channel", hook=True),
    Mutation("observation_access", "1", "environment",
             "return partial results; the rest is only reachable by inspecting logs", hook=True),
    Mutation("repeat", "1", "none", "the identity transform (the repeat control)",
             invertible=True),
)
MUTATION_PREFIX = "mut:"


class UnknownMutationError(UnknownNameError):
    """Raised for a mutation name not in the catalog."""


MUTATION_REGISTRY: Registry[Mutation] = Registry(
    "mutation", group="agentmetrology.mutations", error=UnknownMutationError,
    check=named_instance(Mutation, call=True))
for _m in BUILTIN_MUTATIONS:
    MUTATION_REGISTRY.add(_m.name, _m)
# The built-in catalog by name, in order (reports and tests list it).
MUTATIONS: dict[str, Mutation] = {m.name: m for m in BUILTIN_MUTATIONS}


def get_mutation(name: str) -> Mutation:
    """Return a mutation by name, or raise naming the known ones."""
    return MUTATION_REGISTRY.get(name)


def split_condition(condition: str) -> tuple[str, str | None]:
    """Return (base condition, mutation name or None) of `base` or `base+mut:NAME`."""
    base, sep, rest = condition.partition("+" + MUTATION_PREFIX)
    if sep:
        return base, rest
    if condition.startswith(MUTATION_PREFIX):
        return "clean", condition[len(MUTATION_PREFIX):]
    return condition, None


def mutated_condition(base: str, mutation: str) -> str:
    """Return the condition name of `base` under `mutation` (`mut:alias`, `stress:x+mut:alias`)."""
    return f"{MUTATION_PREFIX}{mutation}" if base == "clean" else \
        f"{base}+{MUTATION_PREFIX}{mutation}"
