"""Episodes under every fault realisation hash as they did before the fault paths were sped up.

One digest over the episode digests and both scorers' verdicts of the duplicate, drift, mixed,
adaptive and budget tasks, clean and under each stress condition's adversary; the pinned value
was computed by the tree before the change (commit 965be0e) and by this one alike.
"""

from __future__ import annotations

import hashlib
import json

from agentmetrology.envs.registry import get_env
from agentmetrology.run.episode import run_episode
from agentmetrology.scoring.episode import score_episode

SPEC = get_env("comtrade")
TASKS = ("T3_duplicates", "T6_page_drift", "T7_totals_trap", "T8_mixed_faults",
         "T9_adaptive_adversary", "T10_constrained_budget")
CONDITIONS = ("stress:escalating", "stress:constant", "stress:dose=0.35",
              "stress:squeeze:slack=1", "stress:b2:escalating:slack=0", "stress:quota:dose=0.5")
PINNED = "aa4e766ca1f925fccf8c1880a0ab45c9b615ffe13dec5c717e8b463a250d4f28"


def _record(task: str, seed: int, agent: str, level: str, condition: str) -> str:
    ep = run_episode(SPEC, task, seed, agent, level, profile="seeded", condition=condition)
    verdicts = [(a.status, a.score, sorted(a.components.items()), list(a.reasons))
                for a in score_episode(SPEC, ep)]
    return json.dumps([task, seed, agent, level, condition, dict(ep.digests), verdicts],
                      sort_keys=True)


def test_fault_episodes_and_verdicts_are_the_pinned_ones() -> None:
    h = hashlib.sha256()
    for task in TASKS:
        for agent, level in (("rule", "L0"), ("scripted:careful", "L2")):
            for seed in range(3):
                h.update(_record(task, seed, agent, level, "clean").encode())
    for condition in CONDITIONS:
        for task in ("T3_duplicates", "T9_adaptive_adversary"):
            h.update(_record(task, 1, "scripted:careful", "L0", condition).encode())
    assert h.hexdigest() == PINNED
