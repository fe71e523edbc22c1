"""Fuzz the tau2 importer and audit with hostile inputs: exit 0 or 2, never a crash or OOM.

As test_importer_fuzz (whose generator and worker this reuses): every field of a small tau2
results file, at every level, replaced by a hostile value, plus declared sizes far beyond the
file, all through `agm archive audit` in one worker under a 1 GiB address-space cap. The file
names no shipped domain and carries no task definitions, so no do-nothing evaluator runs.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from .test_importer_fuzz import Cases, dumps, mutations, run_cases

SEED = 20261207
MESSAGE = {"role": "assistant", "content": "ok", "cost": 0.01,
           "usage": {"prompt_tokens": 10, "completion_tokens": 2},
           "tool_calls": [{"id": "c1", "name": "f", "arguments": {"a": 1},
                           "requestor": "assistant"}]}
SIM = {"id": "s1", "task_id": "1", "trial": 0, "termination_reason": "user_stop",
       "agent_cost": 0.01, "user_cost": 0.002,
       "reward_info": {"reward": 1.0, "reward_basis": ["DB"], "reward_breakdown": {"DB": 1.0},
                       "db_check": {"db_match": True, "db_reward": 1.0},
                       "action_checks": [{"action": {"name": "f", "requestor": "assistant"},
                                          "action_match": True}],
                       "nl_assertions": [{"met": True}], "communicate_checks": [],
                       "env_assertions": [], "info": {}},
       "messages": [MESSAGE, {"role": "tool", "id": "c1", "content": "r"},
                    {"role": "user", "content": "bye", "cost": 0.002}]}
DOC = {"info": {"num_trials": 1, "agent_info": {"llm": "m"}, "user_info": {"llm": "u"},
                "environment_info": {"domain_name": "fuzzdomain"}},
       "simulations": [SIM, {**SIM, "id": "s2", "task_id": "2"}]}


def build_cases(root: Path) -> list[dict[str, Any]]:
    """Return every case (deterministic for SEED), writing its input files under root."""
    rng = random.Random(SEED)
    cases = Cases(root)
    for label, doc in mutations(rng, DOC, 1):
        cases.add(f"tau2 {label}", cases.file(".json", dumps(doc)), "--format", "tau2")
    for trial in (10**6, 10**9, 2**53):
        doc = json.loads(json.dumps(DOC))
        doc["simulations"][1]["trial"] = trial
        cases.add(f"tau2 trial {trial}", cases.file(".json", dumps(doc)))
        doc = json.loads(json.dumps(DOC))
        doc["info"]["num_trials"] = trial
        cases.add(f"tau2 num_trials {trial}", cases.file(".json", dumps(doc)))
    doc = json.loads(json.dumps(DOC))
    for sim in doc["simulations"]:
        sim["agent_cost"] = sim["user_cost"] = 1e308
        for m in sim["messages"]:
            m["cost"] = 1e308
    cases.add("tau2 costs 1e308", cases.file(".json", dumps(doc)))
    return cases.items


def test_tau2_audit_survives_hostile_input(tmp_path: Path) -> None:
    items = build_cases(tmp_path)
    assert len(items) > 60
    by = run_cases(tmp_path, items)
    for trial in (10**6, 10**9, 2**53):  # refused as implausible, never built
        assert by[f"tau2 trial {trial}"]["exit_code"] == 2, by[f"tau2 trial {trial}"]
        assert "implausible" in by[f"tau2 trial {trial}"]["stderr"]
        assert by[f"tau2 num_trials {trial}"]["exit_code"] == 2
    assert by["tau2 costs 1e308"]["exit_code"] == 0
