"""Agents by name: an environment's own model-free agents, and families every environment has.

A model-free agent (`rule`, `careful`, `scripted:BEHAVIOUR` ...) belongs to its environment
(`EnvSpec.agents`). An agent family works in every environment: `llm:MODEL` is the family `llm`
of `AGENT_FAMILIES`, whose factory receives MODEL and the endpoint options. A third-party package
adds a family with an entry point in the group `agentmetrology.agents` whose value is a factory
`(argument, **options) -> Policy`; `--agent NAME:ARGUMENT` then reaches it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.errors import UserError
from agentmetrology.records.policy import Policy
from agentmetrology.runtime.registry import FAMILY_SEPARATOR, Registry

AgentFactory = Callable[..., Policy]
LLM_FAMILY = "llm"
AGENT_PREFIX = LLM_FAMILY + FAMILY_SEPARATOR  # "llm:"

AGENT_FAMILIES: Registry[AgentFactory] = Registry("agent family", group="agentmetrology.agents",
                                                  plugin_family="ARGUMENT")
# The LLM agent's module pulls in the HTTP client: imported when an llm: agent is first made.
AGENT_FAMILIES.add_lazy(LLM_FAMILY, "agentmetrology.agents.llm.policy:llm_agent",
                        family="MODEL")


class UnknownAgentError(UserError):
    """Raised for an agent name neither the environment nor an agent family provides."""


def agent_family(name: str) -> str | None:
    """Return the family providing `name` (`llm` for `llm:MODEL`), None for any other name."""
    if FAMILY_SEPARATOR not in name or name not in AGENT_FAMILIES:
        return None  # `in` reads the entry points only for a NAME:ARGUMENT not built in
    return name.partition(FAMILY_SEPARATOR)[0]


def make_agent(spec: EnvSpec, name: str, **options: Any) -> Policy:
    """Return a fresh policy: the environment's agent `name`, or one of an agent family made
    from `options`; raise UnknownAgentError naming them all."""
    factory = spec.agents.get(name)
    if factory is not None:
        return factory()
    if agent_family(name) is not None:
        return AGENT_FAMILIES.create(name, **options)
    raise UnknownAgentError(f"unknown agent {name!r} for environment {spec.name!r}; known: "
                            f"{', '.join(spec.agents)} "
                            f"(and {', '.join(AGENT_FAMILIES.names(plugins=False))})")
