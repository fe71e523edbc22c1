"""The one episode runner: a policy on one environment instance under a level's ownership.

Every caller (`agm run`, campaign workers on every backend, LLM episodes, the auditor, archive
recovery) runs episodes through `run_episode_async`. The environment's own harness programs run
the levels where the harness owns decisions; the level where the model owns everything is the
same loop for every environment.
"""

from __future__ import annotations

from collections.abc import Mapping

from agentmetrology.agents.scaffolds.ownership import SCAFFOLD_POLICIES
from agentmetrology.mutations import mutate_message, split_condition
from agentmetrology.records.canonical import digest
from agentmetrology.records.clock import Clock, FakeClock
from agentmetrology.records.environment import EnvInstance, EnvSpec, Owner, model_owned_in
from agentmetrology.records.episode import Episode, EpisodeKey, Termination, Usage
from agentmetrology.records.errors import InfraError
from agentmetrology.records.policy import Brief, Policy, Stop, sync_act
from agentmetrology.records.tools import Observation
from agentmetrology.runtime.recorder import Recorder


async def run_model_owned(env: EnvInstance, policy: Policy, rec: Recorder,
                          max_steps: int) -> str:
    """Run a level where the model owns every decision: its calls reach the tools unchanged."""
    obs: Observation | None = None
    steps = 0
    now = sync_act(policy)
    while steps < max_steps and env.submitted is None:
        if now is not None:
            move = now(obs)
        else:
            move = await policy.act(obs)
            rec.attempts.extend(policy.take_attempts())
        if isinstance(move, Stop):
            rec.add("agent", "message", "stop", {}, move.text)
            return "agent stopped without submitting"
        steps += 1
        obs = rec.call("agent", move.name, move.args)
    return ""


def _termination(env: EnvInstance, submitted: object, stopped: str,
                 max_steps: int) -> Termination:
    if submitted is not None:
        return Termination("submitted", stopped)
    if env.budget_exhausted:
        return Termination("budget_exhausted", "request budget spent without a submission")
    if stopped:
        return Termination("agent_error", stopped)
    return Termination("step_limit", f"no submission within {max_steps} tool calls")


def brief_for(spec: EnvSpec, env: EnvInstance, level: str, max_steps: int,
              clock: Clock, ownership: Mapping[str, Owner] | None = None) -> Brief:
    """Return what the policy is told at the start of an episode of `spec` at `level`
    (`ownership`: `spec.ownership_of(level)` when the caller has it already)."""
    task = spec.tasks[env.task_id]
    shown = spec.display.task_brief if spec.display else None
    description, query = shown(task) if shown else ("", {})
    prompts = {}  # a model-free agent needs none; an LLM agent refuses without them (its reset)
    if spec.prompts is not None:
        message = mutate_message(split_condition(env.condition)[1],
                                 spec.prompts.task_message(task, level, max_steps))
        prompts = {"system_prompt": spec.prompts.system, "task_message": message,
                   "prompt_version": spec.prompts.version}
    own = spec.ownership_of(level) if ownership is None else ownership
    # One construction (every episode makes a brief): dataclasses.replace costs as much again.
    owned = model_owned_in(own)
    return Brief(env.task_id, description, query, tuple(t.spec for t in env.tools.values()),
                 level, owned, env.seed, max_steps, clock,  # type: ignore[arg-type]
                 environment=spec.name, **prompts)


async def run_episode_async(spec: EnvSpec, env: EnvInstance, policy: Policy, level: str, *,
                            clock: Clock | None = None, max_steps: int | None = None,
                            target: str | None = None, campaign: str = "adhoc",
                            repeat: int = 0) -> Episode:
    """Run one episode of `policy` on `env` at `level` and return its full record."""
    ownership = spec.ownership_of(level)
    if level not in policy.levels:
        raise ValueError(f"agent {policy.name!r} cannot act at {level}; it supports "
                         f"{', '.join(policy.levels)}")
    steps = spec.max_steps if max_steps is None else max_steps
    clock = clock or FakeClock()
    rec = Recorder(env, clock)
    policy.reset(brief_for(spec, env, level, steps, clock, ownership))
    program = spec.harness.get(level, run_model_owned)
    try:
        stopped = await program(env, policy, rec, steps)
        sub = env.submitted  # read once: an environment may build it on every read
        termination = _termination(env, sub, stopped, steps)
    except InfraError as exc:
        termination = Termination("infra_error", str(exc))
        sub = env.submitted
    except Exception as exc:  # an agent bug is an agent failure, recorded, never a crash
        termination = Termination("agent_error", f"{type(exc).__name__}: {exc}")
        sub = env.submitted
    rec.attempts.extend(policy.take_attempts())
    notes = getattr(policy, "notes", None)  # e.g. an LLM policy's quirks and handling log
    transcript = getattr(policy, "episode_transcript", None)  # a model's requests
    kept = transcript() if callable(transcript) else None
    name = target or policy.name
    seed = env.seed if env.seed is not None else -1
    key = EpisodeKey(campaign, name, env.task_id, seed, env.condition, level, repeat)
    meta = {"environment": spec.name, "profile": env.profile, "agent": policy.name,
            "ownership": ownership, "scaffold_policy": SCAFFOLD_POLICIES[level],
            "max_steps": steps, **({"policy_notes": notes()} if callable(notes) else {})}
    episode = Episode(
        key=key, target=name, task=env.task_id, seed=seed, condition=env.condition,
        level=level, events=rec.events, submission=sub, termination=termination,
        usage=Usage(tool_calls=rec.tool_calls, requests=env.requests_used,
                    attempts=rec.attempts),
        digests={**({"submission": digest(sub)} if sub is not None else {}),
                 **({"transcript": kept.digest} if kept is not None else {})},
        meta=meta, transcript=kept)
    end = getattr(policy, "end_episode", None)  # e.g. a scripted policy's suspended script
    if callable(end):
        end()
    return episode
