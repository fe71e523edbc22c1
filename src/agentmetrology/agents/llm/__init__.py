"""LLM policies over OpenAI-compatible chat completion endpoints."""

from agentmetrology.agents.llm.client import AttemptSink, ChatClient
from agentmetrology.agents.llm.policy import (
    ChatPolicy,
    make_llm_policy,
    parse_agent_spec,
    target_from_spec,
)
from agentmetrology.agents.llm.quirks import QUIRKS, Quirk, apply_quirks
from agentmetrology.agents.llm.redact import redact, redact_value
from agentmetrology.agents.llm.target import LLMTarget, Prices

__all__ = [
    "QUIRKS",
    "AttemptSink",
    "ChatClient",
    "ChatPolicy",
    "LLMTarget",
    "Prices",
    "Quirk",
    "apply_quirks",
    "make_llm_policy",
    "parse_agent_spec",
    "redact",
    "redact_value",
    "target_from_spec",
]
