"""The tau2 domains' own tools, outside an Inspect sample: replay calls, read the end state.

inspect-evals' tau2 implementation (the `inspect` extra) ships each domain's database and agent
tools; replaying (name, arguments) calls on a fresh copy of the initial database and hashing the
result is how its scorer builds the expected end state from the gold actions. The outcome probe
uses it to keep only corruptions that change that end state.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

DOMAINS = ("airline", "retail")  # telecom's gold actions include the user's own device


@dataclass(frozen=True, slots=True)
class Toolkit:
    """A domain's agent-tools class and its loaded initial database."""

    tools: type
    db: Any


def toolkit(domain: str) -> Toolkit:
    """Return the agent tools and initial database of an airline or retail domain."""
    from inspect_evals.tau2.airline.AirlineAgentTools import AirlineAgentTools
    from inspect_evals.tau2.retail.RetailAgentTools import RetailAgentTools

    if domain not in DOMAINS:
        raise ValueError(f"tau2 domain {domain!r} is not one of {', '.join(DOMAINS)}")
    cls: type = AirlineAgentTools if domain == "airline" else RetailAgentTools
    base = cls(instance=f"agm_tau2_{uuid.uuid4()}")
    base.initialize()
    return Toolkit(cls, base.db)


def end_state(kit: Toolkit, calls: list[tuple[str, dict[str, Any]]]) -> str:
    """Return the database hash after the calls, on a fresh copy; a refused call changes nothing.

    That is the gold end state's construction: a call the tools refuse (an error observation
    for the agent) leaves the database as it was.
    """
    tools = kit.tools(instance=f"agm_tau2_{uuid.uuid4()}", db=kit.db.model_copy(deep=True),
                      initialized=True)
    for name, args in calls:
        method = None if name.startswith("_") else getattr(tools, name, None)
        if not callable(method) or name in {"initialize", "model_copy"}:
            continue
        try:
            method(**args)
        except Exception:
            continue
    return str(tools.db.get_hash())
