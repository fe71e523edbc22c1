"""The solver of an environment's Inspect task: one episode through our runner, kept in the store.

The sample's metadata names (environment, task, seed, level, condition, profile); the episode
runs through `run_episode_async` with the eval's model as the agent (`InspectModelPolicy`), and
its full record (events with actor, submission, termination, usage) goes into the sample's
store under EPISODE_KEY as canonical plain JSON, where our scorers and the log's readers find
it. The episode's transcript (every generate call's messages and output, as the chat policy
records one) goes under TRANSCRIPT_KEY: its digest (what the episode binds), its document and
the distinct messages and tools the document names by digest. The conversation becomes the
sample's messages and output. Events are stamped by a fake
clock, as in `agm run`: the environments are in-process, so a harness's backoff needs no real
wait, and the same model outputs give a byte-identical episode.
"""

from __future__ import annotations

import json
from typing import Any

from inspect_ai.model import get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.registry import get_env
from agentmetrology.inspect_ext.task.policy import InspectModelPolicy
from agentmetrology.inspect_ext.task.transcript import record_tool_events
from agentmetrology.records.canonical import to_plain
from agentmetrology.records.clock import FakeClock
from agentmetrology.run.episode import make_env

EPISODE_KEY = "agentmetrology:episode"
TRANSCRIPT_KEY = "agentmetrology:transcript"
CAMPAIGN = "inspect"


def sample_metadata(environment: str, task: str, seed: int, level: str, condition: str,
                    profile: str, max_steps: int | None) -> dict[str, Any]:
    """Return the metadata of one (task, seed) sample."""
    return {"environment": environment, "task": task, "seed": seed, "level": level,
            "condition": condition, "profile": profile, "max_steps": max_steps}


@solver
def episode_solver() -> Solver:
    """Return a solver running the sample's episode with the eval's model as the agent."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        spec = get_env(str(meta["environment"]))
        env = make_env(spec, str(meta["task"]), int(meta["seed"]), str(meta["profile"]),
                       str(meta["condition"]))
        policy = InspectModelPolicy(get_model())
        episode = await run_episode_async(
            spec, env, policy, str(meta["level"]), clock=FakeClock(),
            max_steps=meta.get("max_steps"), target=policy.name, campaign=CAMPAIGN,
            repeat=max(state.epoch - 1, 0))
        record_tool_events(episode)
        state.store.set(EPISODE_KEY, to_plain(episode, tag_non_finite=True))
        if episode.transcript is not None:
            t = episode.transcript
            state.store.set(TRANSCRIPT_KEY, {
                "digest": t.digest, "document": json.loads(t.encoded()[0]),
                "messages": t.messages, "tools": t.tools})
        state.messages = list(policy.messages)
        if policy.output is not None:
            state.output = policy.output
        return state

    return solve
