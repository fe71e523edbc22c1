"""The tau2 domains' own tools, outside an Inspect sample: replay calls, read the end state.

inspect-evals' tau2 implementation (the `inspect` extra) ships each domain's database and agent
tools; replaying (name, arguments) calls on a fresh copy of the initial database and hashing the
result is how its scorer builds the expected end state from the gold actions. The outcome probe
uses it to keep only corruptions that change that end state. The worlds are the archive's
(`archive.tau2_world`, which `agm archive regrade` replays recorded calls on): one loader of
the domains' tools, not two.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.archive.tau2_world import Kit, World, open_kit

DOMAINS = ("airline", "retail")  # telecom's gold actions include the user's own device


def toolkit(domain: str) -> Kit:
    """Return the agent tools and initial database of an airline or retail domain."""
    if domain not in DOMAINS:
        raise ValueError(f"tau2 domain {domain!r} is not one of {', '.join(DOMAINS)}")
    return open_kit(domain)


def end_state(kit: Kit, calls: list[tuple[str, dict[str, Any]]]) -> str:
    """Return the database hash after the calls, on a fresh copy; a refused call changes nothing.

    That is the gold end state's construction: a call the tools refuse (an error observation
    for the agent, an unknown tool, arguments it cannot take) leaves the database as it was.
    """
    world = World(kit)
    for name, args in calls:
        try:
            world.call("assistant", name, args, strict=False)
        except Exception:  # as the gold construction: the call changed nothing
            continue
    return world.db_hash()
