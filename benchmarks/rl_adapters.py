"""What the RL adapters cost: episodes/s through `agm run`'s runner, an adapter session, OpenEnv.

The same workload three ways — ComtradeBench T3_duplicates at L2, the `scripted:careful`
policy's moves, seeds 0..39, the fastest of 5 passes: (1) `run_one` (the runner driving the
policy, scored), (2) an `EpisodeSession` stepped from outside with the same moves (what both
adapters run), (3) the OpenEnv server on 127.0.0.1 driven by OpenEnv's WebSocket `EnvClient`.
Writes benchmarks/results/rl_adapters.json.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

from agentmetrology.adapters.openenv_env import AgmAction, AgmEnvClient, running
from agentmetrology.adapters.session import EpisodeSession
from agentmetrology.agents.scaffolds.runner import brief_for
from agentmetrology.envs.registry import get_env
from agentmetrology.records.clock import FakeClock
from agentmetrology.records.policy import Policy, Stop, ToolCall
from agentmetrology.run.episode import make_env, make_policy, run_one
from agentmetrology.runtime.drive import drive

ENV, TASK, AGENT, LEVEL = "comtrade", "T3_duplicates", "scripted:careful", "L2"
SEEDS = range(40)
REPEATS = 5
OUT = Path(__file__).resolve().parent / "results" / "rl_adapters.json"


def _policy(seed: int) -> Policy:
    spec = get_env(ENV)
    policy = make_policy(spec, AGENT)
    policy.reset(brief_for(spec, make_env(spec, TASK, seed, spec.profiles[0], "clean"), LEVEL,
                           spec.max_steps, FakeClock()))
    return policy


def _timed(fn: Any) -> tuple[float, int]:
    # The fastest of REPEATS passes: the machine is shared, so the minimum is the least noisy.
    best, steps = float("inf"), 0
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        steps = sum(fn(seed) for seed in SEEDS)
        best = min(best, time.perf_counter() - t0)
    return best, steps


def via_runner(seed: int) -> int:
    """Run and score one episode as `agm run` does; return its tool calls."""
    return run_one(get_env(ENV), TASK, seed, AGENT, LEVEL).episode.usage.tool_calls


def via_session(seed: int) -> int:
    """Step one episode from outside with the policy's moves; return the steps."""
    spec = get_env(ENV)
    session, policy = EpisodeSession(spec, TASK, seed, LEVEL), make_policy(spec, AGENT)
    policy.reset(session.brief)  # what the runner tells a policy, as the session kept it
    while session.pending.kind == "act":
        move = drive(policy.act(session.pending.observation))
        session.act(move if isinstance(move, ToolCall) else Stop())
    assert session.outcome is not None and session.outcome.reward == 1.0
    return session.steps


def via_openenv(url: str) -> Any:
    """Return a function playing one episode through OpenEnv's client at `url`.

    The client-side policy gets its brief from a local environment (its cost is included)."""
    def play(seed: int) -> int:
        policy, steps = _policy(seed), 0
        with AgmEnvClient(base_url=url) as client:
            r = client.reset(task=TASK, seed=seed, level=LEVEL)
            while not r.done:
                move = drive(policy.act(r.observation.tool_result))
                action = AgmAction(tool=move.name, args=move.args) \
                    if isinstance(move, ToolCall) else AgmAction(kind="stop")
                r, steps = client.step(action), steps + 1
        assert r.reward == 1.0
        return steps
    return play


def main() -> None:
    """Measure the three paths and write the results JSON."""
    via_runner(0), via_session(0)  # imports and first-call costs out of the timings
    results: dict[str, Any] = {}
    with running(ENV) as url:
        via_openenv(url)(0)
        for name, fn in (("runner", via_runner), ("session", via_session),
                         ("openenv", via_openenv(url))):
            seconds, steps = _timed(fn)
            results[name] = {"episodes": len(SEEDS), "steps": steps, "seconds": round(seconds, 4),
                             "episodes_per_s": round(len(SEEDS) / seconds, 1),
                             "ms_per_step": round(1000 * seconds / steps, 3)}
    doc = {"benchmark": "rl_adapters", "environment": ENV, "task": TASK, "agent": AGENT,
           "level": LEVEL, "results": results,
           "session_over_runner": round(results["session"]["seconds"]
                                        / results["runner"]["seconds"], 2),
           "openenv_over_runner": round(results["openenv"]["seconds"]
                                        / results["runner"]["seconds"], 2),
           "machine": platform.machine(), "cpus": os.cpu_count(),
           "python": sys.version.split()[0],
           "uptime": "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(doc, indent=2))


if __name__ == "__main__":
    main()
