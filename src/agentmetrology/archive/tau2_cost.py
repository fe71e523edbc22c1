"""tau2 costs: the agent's and the user simulator's apart, checked message by message.

A simulation records `agent_cost` and `user_cost`; each message records its own `cost`. The
assistant messages' costs should sum to `agent_cost` and the user messages' to `user_cost`; a
simulation where they do not is a finding. An agent total of exactly 0 means no price was
applied (a local provider, or token usage with no price): the cost is "unpriced", not free, and
is left out of cost comparisons (cost per pass is then undefined), with the count said. So is a
file where only some simulations record cost 0 for the tokens their messages used; on the user
simulator's side such a simulation leaves the simulator's share and the totals per pass
undefined.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from agentmetrology.archive.model import ArchiveEpisode

REL_TOL = 1e-9  # float sums of a few hundred message costs differ from the total by ~1e-15
ABS_TOL = 1e-9
LOCAL_PROVIDERS = ("ollama", "ollama_chat", "vllm", "hosted_vllm", "lm_studio", "llamafile")
MAX_LISTED = 200


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def _read(ep: ArchiveEpisode) -> bool:
    """Return whether a simulation's costs were read: a malformed record's were not, or not
    from a record that says what it is (a key named twice, a repeat with another result)."""
    return "message_costs" in ep.meta and ep.reason != "malformed_record"


def _side(sims: list[ArchiveEpisode], field: str, role: str) -> dict[str, Any]:
    """Return the recorded total, the message sum of the same simulations, the simulations
    where they disagree, those with no usable cost (`missing`: unknown, not free) and those
    recording cost 0 for tokens their messages used (`unpriced`: no price was applied)."""
    recorded = [(ep, ep.meta.get(field)) for ep in sims if _read(ep)]
    known = [(ep, r, ep.meta["message_costs"][role]) for ep, r in recorded if r is not None]
    bad = [{"episode_id": ep.episode_id, "recorded": r, "messages": m}
           for ep, r, m in known if not _close(r, m)]
    unpriced = sum(r == 0 and ep.meta["message_costs"][f"{role}_tokens"] > 0
                   for ep, r in recorded)
    # The message sum is of the simulations the total sums: beside a total that leaves an
    # unknown cost out, a sum holding that simulation's messages read as a disagreement
    # (0.7558 against 0.7833) that its count of disagreeing simulations (0) denied.
    return {"total": math.fsum(r for _, r, _ in known) if known else None,
            "summed": len(known), "missing": len(sims) - len(known), "unpriced": unpriced,
            "messages_total": math.fsum(m for _, _, m in known),
            "disagreeing_simulations": len(bad), "disagreements": bad[:MAX_LISTED]}


def _unpriced(model: str, agent: dict[str, Any], tokens: int, sims: int) -> str | None:
    """Return why the agent's cost is unpriced, or None when it is a price."""
    if agent["total"] is None:
        return None
    if agent["total"] != 0:
        # A priced file with some simulations at cost 0 for tokens used (a model the price
        # table lacked, runs merged from two setups): summed as 0, they read as free.
        n = agent["unpriced"]
        return (f"cost 0 with recorded token usage in {n} of {sims} simulations: no price was "
                "applied there") if n else None
    provider = model.split("/", 1)[0].lower() if "/" in model else ""
    if provider in LOCAL_PROVIDERS:
        return f"cost 0 from a local provider ({provider})"
    if tokens:
        return f"cost 0 with {tokens} tokens of recorded usage: no price was applied"
    return "cost 0 with no usage recorded: no price was applied"


def _tokens(sims: list[ArchiveEpisode]) -> int:
    return sum(int(ep.meta["message_costs"]["assistant_tokens"]) for ep in sims if _read(ep))


def cost_section(episodes: list[ArchiveEpisode], model: str) -> dict[str, Any]:
    """Return agent and simulator cost apart, message checks, unpriced status, cost per pass."""
    # Every simulation the file holds, read or not: a malformed one left out made the others'
    # average read as the run's (19 costs over 19 simulations of a 20-simulation run).
    sims = [ep for ep in episodes if "simulation_index" in ep.meta]
    if not any(_read(ep) for ep in sims):
        return {"applicable": False, "reason": "no simulation recorded a cost"}
    agent, user = _side(sims, "agent_cost", "assistant"), _side(sims, "user_cost", "user")
    unpriced = _unpriced(model, agent, _tokens(sims), len(sims))
    passes = sum(ep.outcome == "pass" for ep in sims)
    both = (agent["total"] or 0.0) + (user["total"] or 0.0)
    # A simulation with no usable cost is unknown, not free: dividing the others' sum by every
    # simulation (or pass) would read it as 0, so a side with one missing has no average.
    priced = unpriced is None and agent["total"] is not None and not agent["missing"]
    both_known = (priced and user["total"] is not None and not user["missing"]
                  and not user["unpriced"])
    return {
        "applicable": True, "simulations": len(sims), "agent": agent, "user_simulator": user,
        "unpriced": unpriced is not None, "unpriced_reason": unpriced,
        "unpriced_simulations": 0 if unpriced is None else agent["unpriced"] if agent["total"]
        else agent["summed"],
        "user_share": float(Fraction(user["total"]) / Fraction(both))
        if both_known and both else None,
        "agent_per_simulation": agent["total"] / len(sims) if priced else None,
        "total_per_simulation": both / len(sims) if both_known else None,
        "passes": passes,
        "agent_per_pass": agent["total"] / passes if priced and passes else None,
        "total_per_pass": both / passes if both_known and passes else None,
    }
