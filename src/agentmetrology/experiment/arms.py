"""Per-arm accounting: coverage, quota deaths and SKIP counts of every agent in every arm.

Read from the recorded episodes, never re-run. A quota death is an episode that ran into the
request quota: its termination is `budget_exhausted`, or a tool call was refused because the
quota was spent (ComtradeBench answers such a fetch with QUOTA_REFUSAL and its harness stops
there). A SKIP is an L1 decision event answered SKIP (the page was given up); levels where no
such question is asked have 0 decisions, which the table shows beside the skips.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.experiment.plan import GROUND_TRUTH
from agentmetrology.records.episode import EpisodeKey
from agentmetrology.records.numbers import finite_float
from agentmetrology.store import EvidenceStore

# ComtradeBench's quota refusal (envs/comtrade/service.py BUDGET_ERROR; a test pins the two
# equal). The experiment layer reaches environments only through the store's records.
QUOTA_REFUSAL = "Request limit exceeded for this episode."


def agents_at(plan: dict[str, Any], level: str) -> list[str]:
    """Return the targets, then the calibration rules, that run at `level`."""
    rules = [a for a, lv in plan.get("calibration", {}).items() if level in lv]
    return [*plan["targets"], *rules]


def episode_counts(ep: dict[str, Any]) -> dict[str, Any]:
    """Return whether an episode died of the quota, its SKIP decisions and all its decisions."""
    events = ep.get("events") or []
    refused = any(isinstance(e.get("result"), dict) and e["result"].get("error") == QUOTA_REFUSAL
                  for e in events if e.get("kind") == "tool_call")
    term = (ep.get("termination") or {}).get("kind")
    decisions = [e.get("result") for e in events if e.get("kind") == "decision"]
    return {"quota_death": refused or term == "budget_exhausted",
            "skips": sum(1 for d in decisions if d == "SKIP"), "decisions": len(decisions)}


def _coverage(row: dict[str, Any] | None) -> float | None:
    if row is None or row["measurement_failure"]:
        return None
    a = next((a for a in row["assessments"] if a["scorer"] == GROUND_TRUTH), None)
    if a is None or finite_float(a["score"]) is None:
        return None
    return finite_float(((a["assessment"] or {}).get("components") or {}).get("recall"))


def arm_table(store: EvidenceStore, campaign: str, plan: dict[str, Any]) -> list[dict[str, Any]]:
    """Return one row per level, agent and arm: coverage, quota deaths, skips (repeat 0)."""
    out = []
    for level in plan["levels"]:
        for agent in agents_at(plan, level):
            role = "target" if agent in plan["targets"] else "calibration"
            for arm in plan["arms"]:
                recorded, covs, deaths, skips, skipped_in, decisions = 0, [], 0, 0, 0, 0
                for seed in range(plan["n"]):
                    key = EpisodeKey(campaign, agent, plan["task"], seed, arm, level, 0)
                    row = store.episode(key)
                    if row is None:
                        continue
                    recorded += 1
                    cov = _coverage(row)
                    if cov is not None:
                        covs.append(cov)
                    c = episode_counts(store.get_json(row["episode_digest"]))
                    deaths += int(c["quota_death"])
                    skips += c["skips"]
                    skipped_in += int(c["skips"] > 0)
                    decisions += c["decisions"]
                out.append({"level": level, "agent": agent, "role": role, "arm": arm,
                            "planned": plan["n"], "recorded": recorded,
                            "coverage_n": len(covs),
                            "coverage": sum(covs) / len(covs) if covs else None,
                            "quota_deaths": deaths, "skips": skips,
                            "episodes_with_skip": skipped_in, "decisions": decisions})
    return out
