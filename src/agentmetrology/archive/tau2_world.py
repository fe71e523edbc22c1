"""A tau2 domain's environment as the `inspect` extra ships it, rebuilt to replay recorded calls.

inspect-evals' tau2 implementation holds each domain's database and tools in tool classes: the
agent's (airline, retail, telecom) and, in telecom, the simulated user's phone (its device and
surroundings). A world is a fresh copy of those databases; recorded calls run on the toolset of
their requestor. Telecom's agent and user sides are kept consistent as inspect-evals' telecom
environment keeps them (its `sync_tools`: line status, roaming, data limit and bills flow to the
phone), after every call, as tau2 does. A tool error is the observation the agent saw (the state
is unchanged); a call the tools cannot execute is a `ReplayProblem`, never a failure.
"""

from __future__ import annotations

import inspect
import json
import uuid
from dataclasses import dataclass
from typing import Any

from agentmetrology.edges.scratch import scratch_tempdir

DOMAINS = ("airline", "retail", "telecom")
SKIPPED_TOOLS = frozenset({"calculate", "transfer_to_human_agents"})  # change no state
NOT_TOOLS = frozenset({"initialize"})


class ReplayProblem(Exception):
    """A recorded call the domain's tools cannot execute (unknown tool, argument error)."""


def _public(cls: type) -> frozenset[str]:
    """Return the tool methods a class defines (its own public functions)."""
    return frozenset(n for n, f in vars(cls).items()
                     if inspect.isfunction(f) and not n.startswith("_") and n not in NOT_TOOLS)


@dataclass(frozen=True, slots=True)
class Kit:
    """How to build fresh worlds of a domain: tool classes and loaded databases per requestor."""

    domain: str
    classes: dict[str, type]
    bases: dict[str, tuple[Any, str]]  # requestor -> (database class, its initial JSON)
    names: dict[str, frozenset[str]]
    tool_error: type[Exception]


def open_kit(domain: str) -> Kit:
    """Return the kit of a domain (airline, retail, telecom); ImportError without the extra."""
    from inspect_ai.tool import ToolError

    classes: dict[str, type]
    if domain == "telecom":
        from inspect_evals.tau2.telecom.TelecomAgentTools import TelecomAgentTools
        from inspect_evals.tau2.telecom.TelecomUserTools import TelecomUserTools
        classes = {"assistant": TelecomAgentTools, "user": TelecomUserTools}
    elif domain == "airline":
        from inspect_evals.tau2.airline.AirlineAgentTools import AirlineAgentTools
        classes = {"assistant": AirlineAgentTools}
    else:
        from inspect_evals.tau2.retail.RetailAgentTools import RetailAgentTools
        classes = {"assistant": RetailAgentTools}
    bases = {}
    for who, cls in classes.items():
        base = cls(instance=f"agm_regrade_{uuid.uuid4()}")
        with scratch_tempdir("agm-tau2-db-"):  # it inflates the database into a file it keeps
            base.initialize()
        # JSON text, validated afresh per world: a few times faster than a deep model copy
        bases[who] = (type(base.db), base.db.model_dump_json())
    return Kit(domain, classes, bases, {w: _public(c) for w, c in classes.items()}, ToolError)


class World:
    """Fresh copies of a domain's databases, with the calls that ran on them."""

    def __init__(self, kit: Kit) -> None:
        self.kit = kit
        self.tools = {who: cls(instance=f"agm_regrade_{uuid.uuid4()}",
                               db=kit.bases[who][0].model_validate(json.loads(kit.bases[who][1])),
                               initialized=True)
                      for who, cls in kit.classes.items()}
        self._env: Any = None
        if kit.domain == "telecom":
            from inspect_evals.tau2.telecom.environment import Environment
            self._env = Environment(user_tools=self.tools["user"],
                                    tools=self.tools["assistant"])  # its constructor syncs

    def call(self, requestor: str, name: str, args: Any, strict: bool = True) -> None:
        """Run one call on the requestor's toolset; strict: a call it cannot run is a problem."""
        if name in SKIPPED_TOOLS:
            return
        tools = self.tools.get(requestor)
        if tools is None or name not in self.kit.names[requestor]:
            if strict:
                raise ReplayProblem(f"unknown tool {name!r} for the {requestor} in "
                                    f"{self.kit.domain}")
            return
        if not isinstance(args, dict):
            raise ReplayProblem(f"{name}: arguments are not an object")
        try:
            getattr(tools, name)(**args)
        except self.kit.tool_error:
            pass  # the requestor saw an error observation; the state is unchanged
        except (TypeError, ValueError, LookupError, AttributeError) as exc:
            if strict:
                raise ReplayProblem(f"{name}: argument error ({type(exc).__name__})") from exc
        if self._env is not None:
            try:
                self._env.sync_tools()
            except ValueError as exc:  # the phone names a line the agent's database lacks
                raise ReplayProblem(f"after {name}: environment sync failed ({exc})") from exc

    def query(self, requestor: str, name: str, args: Any) -> Any:
        """Return what a task's own function (an environment assertion) gives on this world."""
        tools = self.tools.get(requestor)
        if tools is None or name not in self.kit.names[requestor] or not isinstance(args, dict):
            raise ReplayProblem(f"assertion {name!r} is not a function of the {requestor}'s "
                                f"tools in {self.kit.domain}")
        try:
            return getattr(tools, name)(**args)
        except (self.kit.tool_error, TypeError, ValueError, LookupError, AttributeError) as exc:
            raise ReplayProblem(f"assertion {name!r} cannot run ({type(exc).__name__})") from exc

    def db_hash(self) -> str:
        """Return the hash of the agent-side database (the DB check of airline and retail)."""
        return str(self.tools["assistant"].db.get_hash())
