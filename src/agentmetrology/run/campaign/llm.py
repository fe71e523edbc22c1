"""LLM administrations: asyncio tasks with a real clock, one policy per episode.

In the driver, the single writer of the store, each provider request the policy reports
(through `set_attempt_sink`, when it has one) is written to the ledger as soon as its response
arrives, not only with the finished episode. On Ray, an actor runs the same `run_llm_job` and
streams each request to the driver, which writes it (run/campaign/ray_llm.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.registry import get_env
from agentmetrology.records.clock import Clock, FastForwardClock, RealClock
from agentmetrology.records.episode import BillableAttempt, Episode
from agentmetrology.records.policy import Policy
from agentmetrology.run.campaign.worker import (
    DeadlinePolicy,
    Job,
    apply_deadline,
    encode,
    provider_time_s,
)
from agentmetrology.run.episode import make_env
from agentmetrology.store.evidence import EpisodeEvidence

PolicyFactory = Callable[[LLMTarget, Clock], Policy]
AttemptSink = Callable[[BillableAttempt], None]


@dataclass(frozen=True, slots=True)
class LLMOutcome:
    """A finished LLM administration and, for a measurement failure, why (one stable line)."""

    evidence: EpisodeEvidence
    failure: str | None


class EpisodeTimeout(Exception):
    """Raised when an LLM episode outlives its deadline plus one request timeout."""


async def within(coro: Coroutine[Any, Any, Episode], policy: Policy, limit_s: float) -> Episode:
    """Return the episode `coro` makes, or cancel it and raise EpisodeTimeout once its agent's
    time (wall time minus the provider's, as the policy reports it) exceeds `limit_s`."""
    task = asyncio.ensure_future(coro)
    started = time.monotonic()
    try:
        while True:
            used = time.monotonic() - started - (provider_time_s(policy) or 0.0)
            if used >= limit_s:
                raise EpisodeTimeout(f"episode still running {limit_s:g} s of the agent's time "
                                     "after it started (deadline plus one request timeout); "
                                     "cancelled")
            # The provider's time is known once its request ends: look again then or at the
            # limit, whichever comes first.
            done, _ = await asyncio.wait({task}, timeout=limit_s - used)
            if done:
                return task.result()
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def llm_policy_problem() -> str | None:
    """Return why the LLM policy cannot be used here, or None when it can."""
    try:
        from agentmetrology.agents.llm.endpoint import resolve_http_client
        from agentmetrology.agents.llm.policy import make_llm_policy  # noqa: F401
    except ImportError as exc:
        return f"the LLM policy is not available ({exc}); install the llm extra"
    try:
        resolve_http_client()  # $AGM_LLM_CLIENT names a usable HTTP path
    except ValueError as exc:
        return str(exc)
    return None


def default_policy_factory() -> PolicyFactory:
    """Return the LLM policy factory of agents.llm (imported only when an llm target runs)."""
    from agentmetrology.agents.llm.policy import make_llm_policy

    def factory(target: LLMTarget, clock: Clock) -> Policy:
        return make_llm_policy(target, clock=clock)

    return factory


def failure_reason(episode: Episode) -> str | None:
    """Return why an episode is a measurement failure, one line (None if it is not).

    The LLM client notes a stable reason per failure mode ("connection refused by HOST:PORT"),
    so that identical failures compare equal; other policies fall back to the termination detail.
    """
    if not episode.termination.is_measurement_failure:
        return None
    notes = episode.meta.get("policy_notes")
    failure = notes.get("failure") if isinstance(notes, dict) else None
    if isinstance(failure, dict) and failure.get("reason"):
        return str(failure["reason"])
    detail = episode.termination.detail.splitlines()
    return (detail[0] if detail else "") or episode.termination.kind


async def run_llm_job(job: Job, target: LLMTarget, factory: PolicyFactory,
                      on_attempt: AttemptSink | None = None) -> LLMOutcome:
    """Run, score and encode one LLM administration; `on_attempt` gets each provider request
    as soon as it is answered."""
    k = job.key
    # The model's own retries wait for real (a provider's rate limit is real); the episode's
    # clock stamps events in real time but skips the harness's backoff against the simulated
    # environment, whose faults count requests (as `agm run` and the Inspect solver do).
    clock = FastForwardClock()
    policy: Policy = factory(target, RealClock())
    set_sink = getattr(policy, "set_attempt_sink", None)
    if on_attempt is not None and callable(set_sink):
        set_sink(on_attempt)
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
            episode = await within(coro, policy, job.deadline_s + target.timeout_s)
    finally:
        aclose = getattr(policy, "aclose", None)
        if callable(aclose):
            await aclose()  # the policy's HTTP client, while its event loop is still open
    apply_deadline(episode, policy)
    # Scoring a large submission takes milliseconds; keep the loop serving other episodes.
    evidence = await asyncio.to_thread(encode, episode, job.environment)
    return LLMOutcome(evidence, failure_reason(episode))
