"""Whole-episode digests pinned from 965be0e, before the per-call scaffold work.

Each episode crosses a path that was made cheaper there: the L0 harness's inline first fetch and
its retries after a `retry: true` result (T4, T5, T10 and a stress condition with adversary
events recorded between calls), a mutation's renamed tools, the careful profile's get_task_info
and its own submission at L2, the run log's status counts and the service's submit and fetch
checks. A digest moves if any byte of the record moves.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.envs.registry import get_env
from agentmetrology.records.canonical import digest
from agentmetrology.records.clock import FakeClock
from agentmetrology.records.tools import Observation, Tool
from agentmetrology.run.episode import run_one
from agentmetrology.runtime.recorder import Recorder

PINNED = [
    ("T4_rate_limit_429", "rule", "L0", 7, "clean",
     "2255743f5b888905a3d008fdaf47e488f2b68fe414e46451ed8e3c91f69246ff"),
    ("T5_server_error_500", "scripted:careful", "L0", 8, "clean",
     "bea76544ca1169f3f7a0c7f7deb34e597cfbec6ccaef777e2473feeb77c65164"),
    ("T10_constrained_budget", "rule", "L0", 9, "clean",
     "c47daf350aae10248f67393224725cf9d3db1e358131f23d16193f7bff84fff3"),
    ("T8_mixed_faults", "scripted:careful", "L2", 10, "clean",
     "7c868da1bd2778ea14b070049714dad49f2aee6b1dfb88a27de9046d02948ac2"),
    ("T3_duplicates", "rule", "L0", 11, "mut:alias",
     "5f27bc096202dbaf7d0f3b84118c152484d45fb0b9948ad9013d7d8ef9c93a04"),
    ("T9_clean_ab", "rule", "L0", 12, "stress:escalating",
     "6356a1bf12c53bc73b58a7c9e173acaff695e8a902342e38c3d45c07e5dd32cd"),
]


@pytest.mark.parametrize(("task", "agent", "level", "seed", "condition", "want"), PINNED)
def test_episode_digest_is_the_one_before_the_scaffold_work(task: str, agent: str, level: str,
                                                            seed: int, condition: str,
                                                            want: str) -> None:
    se = run_one(get_env("comtrade"), task, seed, agent, level, condition=condition)
    assert digest(se.episode) == want


class _Loud(Tool):
    """A Tool whose __call__ does more than forward: the recorder must still call it."""

    __slots__ = ()

    def __call__(self, **kwargs: Any) -> Observation:
        return {"wrapped": self.fn(**kwargs)}


def test_recorder_calls_a_tool_subclass_through_its_call_and_records_bad_arguments() -> None:
    env = ComtradeEnv("T3_duplicates", 0)
    plain = env.tools["get_task_info"]
    env.tools["get_task_info"] = _Loud(plain.spec, plain.fn)
    rec = Recorder(env, FakeClock())
    assert set(rec.call("agent", "get_task_info", {})) == {"wrapped"}
    assert "rows" in rec.call("agent", "fetch_page", {"page": 1})
    bad = rec.call("agent", "fetch_page", [1])
    assert bad == {"error": "fetch_page: arguments must be a JSON object"}
    unknown = rec.call("agent", "nope", "x")
    assert unknown["error"].startswith("unknown tool 'nope'")
    assert [(e.seq, e.name, e.args) for e in rec.events] == [
        (0, "get_task_info", {}), (1, "fetch_page", {"page": 1}), (2, "fetch_page", {}),
        (3, "nope", {})]
    assert rec.tool_calls == 4
