"""LLM administrations: asyncio tasks in the driver with a real clock, one policy per episode."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.registry import get_env
from agentmetrology.records.clock import Clock, RealClock
from agentmetrology.records.policy import Policy
from agentmetrology.run.campaign.worker import DeadlinePolicy, Job, apply_deadline, encode
from agentmetrology.run.episode import make_env
from agentmetrology.store.evidence import EpisodeEvidence

PolicyFactory = Callable[[LLMTarget, Clock], Policy]


class EpisodeTimeout(Exception):
    """Raised when an LLM episode outlives its deadline plus one request timeout."""


def llm_policy_problem() -> str | None:
    """Return why the LLM policy cannot be used here, or None when it can."""
    try:
        from agentmetrology.agents.llm.policy import make_llm_policy  # noqa: F401
    except ImportError as exc:
        return f"the LLM policy is not available ({exc}); install the llm extra"
    return None


def default_policy_factory() -> PolicyFactory:
    """Return the LLM policy factory of agents.llm (imported only when an llm target runs)."""
    from agentmetrology.agents.llm.policy import make_llm_policy

    def factory(target: LLMTarget, clock: Clock) -> Policy:
        return make_llm_policy(target, clock=clock)

    return factory


async def run_llm_job(job: Job, target: LLMTarget, factory: PolicyFactory) -> EpisodeEvidence:
    """Run, score and encode one LLM administration."""
    k = job.key
    clock = RealClock()
    policy: Policy = factory(target, clock)
    if job.deadline_s is not None:
        policy = DeadlinePolicy(policy, job.deadline_s)
    spec = get_env(job.environment)
    env = make_env(spec, k.task, k.seed, job.profile, k.condition)
    coro = run_episode_async(spec, env, policy, k.level, clock=clock, max_steps=job.max_steps,
                             target=k.target, campaign=k.campaign, repeat=k.repeat)
    try:
        if job.deadline_s is None:
            episode = await coro
        else:
            # The wrapper stops new moves at the deadline; a request hung past it is cut here.
            hard = job.deadline_s + target.timeout_s
            try:
                episode = await asyncio.wait_for(coro, hard)
            except TimeoutError:
                raise EpisodeTimeout(f"episode still running {hard:g} s after it started "
                                     "(deadline plus one request timeout); cancelled") from None
    finally:
        aclose = getattr(policy, "aclose", None)
        if callable(aclose):
            await aclose()  # the policy's HTTP client, while its event loop is still open
    apply_deadline(episode, policy)
    # Scoring a large submission takes milliseconds; keep the loop serving other episodes.
    return await asyncio.to_thread(encode, episode, job.environment)
