"""Agent names the CLI and campaigns accept, and the factory that builds them."""

from __future__ import annotations

from agentmetrology.envs.comtrade.policies.l1_rules import L1_RULES, L1Rule
from agentmetrology.envs.comtrade.policies.rule import RuleBaseline
from agentmetrology.envs.comtrade.policies.scripted import BEHAVIOURS, scripted
from agentmetrology.records.policy import Policy


def agent_names() -> list[str]:
    """Return every model-free agent name: rule, l1:RULE and scripted:PROFILE."""
    return ["rule", *(f"l1:{r}" for r in L1_RULES), *(f"scripted:{p}" for p in BEHAVIOURS)]


def make_agent(name: str) -> Policy:
    """Return a fresh model-free policy by name, or raise ValueError listing the valid names."""
    if name == "rule":
        return RuleBaseline()
    kind, _, rest = name.partition(":")
    if kind == "l1" and rest in L1_RULES:
        return L1Rule(rest)
    if kind == "scripted" and rest in BEHAVIOURS:
        return scripted(rest)
    raise ValueError(f"unknown agent {name!r}; known: {', '.join(agent_names())}")
