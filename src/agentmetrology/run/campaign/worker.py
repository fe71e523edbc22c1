"""What runs one administration, wherever it runs (inline, a worker process, a Ray task).

A worker returns plain, picklable evidence; it never touches the store, so the store has
exactly one writer.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT, get_env
from agentmetrology.records.clock import Clock
from agentmetrology.records.episode import BillableAttempt, Episode, EpisodeKey, Termination
from agentmetrology.records.policy import Brief, Decision, Move, Policy, Question, Stop
from agentmetrology.records.tools import Observation
from agentmetrology.run.episode import make_env, make_policy
from agentmetrology.runtime.drive import drive
from agentmetrology.scoring.episode import score_episode
from agentmetrology.store.evidence import EpisodeEvidence


@dataclass(frozen=True, slots=True)
class Job:
    """One administration to run: its key, agent and episode limits (picklable)."""

    attempt_id: int
    key: EpisodeKey
    agent: str  # model-free agent name; for llm targets the target name
    profile: str
    max_steps: int
    deadline_s: float | None = None
    environment: str = DEFAULT_ENVIRONMENT


def provider_time_s(policy: Policy) -> float | None:
    """Return the seconds a policy spent waiting on its provider, None if it has none (the
    LLM policy's `provider_time_s`; model-free policies have no provider)."""
    report = getattr(policy, "provider_time_s", None)
    return float(report()) if callable(report) else None


class DeadlinePolicy:
    """Wraps a policy so that it stops proposing moves once the episode's deadline has passed.

    The scaffold then ends the episode its own way (at L0 the harness still submits what it
    collected), so the record keeps every event up to the deadline. The deadline counts the
    agent's time: the episode clock's time minus what the policy reports as its provider's
    (waits before retries, failed attempts, slow answers beyond an allowance), so a rate-limited
    or slow endpoint never turns into an agent failure.
    """

    def __init__(self, inner: Policy, deadline_s: float) -> None:
        self.inner = inner
        self.name = inner.name
        self.levels = inner.levels
        self.deadline_s = deadline_s
        self.reached = False
        self._clock: Clock | None = None
        self._start = 0.0

    def reset(self, brief: Brief) -> None:
        """Start the deadline on the episode's clock."""
        self._clock = brief.clock
        self._start = brief.clock.now()
        self.reached = False
        self.inner.reset(brief)

    def agent_time_s(self) -> float:
        """Return the episode's time so far that was the agent's (the provider's excluded)."""
        if self._clock is None:
            return 0.0
        return self._clock.now() - self._start - (provider_time_s(self.inner) or 0.0)

    def _over(self) -> bool:
        if self._clock is not None and self.agent_time_s() >= self.deadline_s:
            self.reached = True
        return self.reached

    async def act(self, observation: Observation | None) -> Move:
        """Return the inner policy's move, or Stop once the deadline has passed."""
        if self._over():
            return Stop(f"deadline of {self.deadline_s:g} s reached")
        return await self.inner.act(observation)

    async def decide(self, question: Question) -> Decision:
        """Return the inner decision, or the question's fallback once the deadline has passed."""
        if self._over():
            return question.fallback
        return await self.inner.decide(question)

    def take_attempts(self) -> list[BillableAttempt]:
        """Return the inner policy's billable attempts."""
        return self.inner.take_attempts()

    def __getattr__(self, name: str) -> Any:
        # Optional extras of the inner policy (an LLM policy's `notes`, `aclose`) stay visible.
        if name == "inner":
            raise AttributeError(name)  # not yet set (e.g. during copying): no recursion
        return getattr(self.inner, name)


def apply_deadline(episode: Episode, policy: Policy) -> None:
    """Mark an episode that hit its deadline without submitting as ended by the deadline."""
    if not isinstance(policy, DeadlinePolicy):
        return
    episode.meta["deadline_s"] = policy.deadline_s
    episode.meta["deadline_reached"] = policy.reached
    provider = provider_time_s(policy.inner)
    if provider is not None:  # what the deadline did not count (only policies with a provider)
        episode.meta["deadline_provider_s"] = provider
    if policy.reached and episode.termination.kind != "submitted":
        episode.termination = Termination("deadline", f"no submission within the deadline of "
                                                      f"{policy.deadline_s:g} s")


def encode(episode: Episode, environment: str) -> EpisodeEvidence:
    """Score an episode with every scorer of its environment and return its evidence."""
    return EpisodeEvidence.from_records(episode, score_episode(get_env(environment), episode))


def run_job(job: Job) -> EpisodeEvidence:
    """Run, score and encode one model-free administration."""
    k = job.key
    spec = get_env(job.environment)
    policy: Policy = make_policy(spec, job.agent)
    if job.deadline_s is not None:
        policy = DeadlinePolicy(policy, job.deadline_s)
    env = make_env(spec, k.task, k.seed, job.profile, k.condition)
    episode = drive(run_episode_async(spec, env, policy, k.level, max_steps=job.max_steps,
                                      target=k.target, campaign=k.campaign, repeat=k.repeat))
    apply_deadline(episode, policy)
    return encode(episode, job.environment)


@dataclass(frozen=True, slots=True)
class JobFailure:
    """An execution error of one job, as plain text (exceptions may not pickle)."""

    detail: str


class WorkerLost(JobFailure):
    """A job whose worker (a Ray actor or task, its node) died while running it: not an
    endpoint failure, and not the job's own error."""


def run_jobs(jobs: list[Job]) -> list[EpisodeEvidence | JobFailure]:
    """Run a batch of jobs; an error in one is returned as its JobFailure, not raised.

    Batches amortise the cost of a round trip to a worker over several episodes.
    """
    out: list[EpisodeEvidence | JobFailure] = []
    for job in jobs:
        try:
            out.append(run_job(job))
        except Exception as exc:  # reported per job; the others of the batch still count
            out.append(JobFailure(f"{type(exc).__name__}: {exc}"))
    return out


def process_gone(pid: int) -> bool:
    """Return True if process `pid` no longer runs (gone, or a zombie nobody reaped yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # the pid exists (owned by someone else)
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[-1].split()[0] == b"Z"
    except (OSError, IndexError):
        return False  # no /proc here: the signal check is all there is


def watch_process(pid: int, interval_s: float, parent: int | None = None) -> None:
    """Exit this process (os._exit) as soon as `pid` dies, or once it is reparented away from
    `parent`; checks every `interval_s` seconds on a daemon thread."""

    def watch() -> None:
        while True:
            time.sleep(interval_s)
            if (parent is not None and os.getppid() != parent) or process_gone(pid):
                os._exit(1)

    threading.Thread(target=watch, name="driver-watchdog", daemon=True).start()


def init_worker(driver_pid: int) -> None:
    """Process-pool initializer: exit when the driver dies (e.g. `kill -9`), never linger."""
    # The parent is the forkserver or the driver; it dies with the driver (a zombie driver too).
    watch_process(driver_pid, 0.25, parent=os.getppid())
