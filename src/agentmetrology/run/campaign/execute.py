"""Running a campaign: what is not yet recorded runs, resumably, within budget, one writer.

Resumption: the run takes the store's lock, marks attempts left `started` by a dead run as
`interrupted` (kept, never replaced), and launches every administration without an episode.
The episodes table accepts one row per key, so nothing is ever recorded twice. With
`retry_measurement_failures`, episodes that ended as measurement failures (infra_error,
cancelled) are first moved to history (superseded, cost kept) so their administrations run again.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from agentmetrology.run.campaign.backends import (
    BACKENDS,
    Backend,
    BackendError,
    BrokenBackend,
    Outcome,
    batch_size,
    make_backend,
)
from agentmetrology.run.campaign.config import check_environment
from agentmetrology.run.campaign.llm import PolicyFactory, default_policy_factory, run_llm_job
from agentmetrology.run.campaign.plan import Plan, Planned, plan_campaign
from agentmetrology.run.campaign.problems import CampaignConfigError
from agentmetrology.run.campaign.spec import CampaignConfig, Limits
from agentmetrology.run.campaign.worker import Job, JobFailure
from agentmetrology.store.evidence import EpisodeEvidence
from agentmetrology.store.ledger import Administration, DuplicateEpisodeError
from agentmetrology.store.status import CampaignStatus, Counts
from agentmetrology.store.store import EvidenceStore

__all__ = ["BACKENDS", "BackendError", "Progress", "RunResult", "run_campaign"]


@dataclass(frozen=True, slots=True)
class Progress:
    """A snapshot for progress displays."""

    planned: int
    done: int
    failed: int
    running: int
    cost: float
    cost_unknown: int

    @property
    def remaining(self) -> int:
        """Return planned administrations without a recorded episode."""
        return self.planned - self.done


ProgressFn = Callable[[Progress], None]


@dataclass(frozen=True, slots=True)
class RunResult:
    """What one `campaign run` did, and the campaign's status afterwards."""

    campaign: str
    backend: str
    recovered: int  # attempts of a dead run marked interrupted at the start
    launched: int
    recorded: int
    failed_attempts: int
    duplicates: int
    not_launched: int
    stop_reason: str | None
    elapsed_s: float
    status: CampaignStatus
    superseded: int = 0  # measurement failures re-opened by this run


class Budget:
    """Campaign-wide spending limits, checked before each LLM launch."""

    def __init__(self, limits: Limits, spent: Counts) -> None:
        self.limits = limits
        self.cost = spent.cost
        self.cost_unknown = spent.cost_unknown
        self.tokens = spent.input_tokens + spent.output_tokens

    def add(self, ev: EpisodeEvidence) -> None:
        """Count a recorded episode's spending."""
        self.cost += ev.cost or 0.0
        self.cost_unknown += ev.cost is None
        self.tokens += ev.input_tokens + ev.output_tokens

    def exceeded(self) -> str | None:
        """Return why no more spending is allowed, or None."""
        lim = self.limits
        if lim.max_cost is not None:
            if self.cost_unknown:
                return (f"budget: max_cost {lim.max_cost:g} cannot be checked, {self.cost_unknown}"
                        " episode(s) have unknown cost (complete the price table)")
            if self.cost >= lim.max_cost:
                return f"budget: max_cost {lim.max_cost:g} reached (spent {self.cost:.6g})"
        if lim.max_tokens is not None and self.tokens >= lim.max_tokens:
            return f"budget: max_tokens {lim.max_tokens} reached (used {self.tokens})"
        return None


class _Runner:
    """Launches pending administrations, records results, keeps the counts."""

    def __init__(self, plan: Plan, store: EvidenceStore, run_id: int, backend: str,
                 progress: ProgressFn | None, factory: PolicyFactory | None) -> None:
        self.plan, self.store, self.run_id, self.backend_name = plan, store, run_id, backend
        self.config = plan.config
        self.progress, self.factory = progress, factory
        status = store.status(self.config.name)
        self.budget = Budget(self.config.limits, status.total)
        self.planned, self.done = status.total.planned, status.total.done
        self.failed = status.total.failed_agent + status.total.failed_infra
        self.running = self.launched = self.recorded = self.errors = self.duplicates = 0
        self.broken: str | None = None  # the backend can run nothing more
        self.budget_stop: str | None = None  # a budget is reached: no more LLM launches
        self.not_launched = 0
        self.started: set[int] = set()
        by_key = plan.by_key()
        pending = [(a, by_key[a.key]) for a in store.pending(self.config.name)]
        self.model_free = [p for p in pending if p[1].target.model_free]
        self.llm = [p for p in pending if not p[1].target.model_free]

    def report(self) -> None:
        """Send a progress snapshot."""
        if self.progress is not None:
            self.progress(Progress(self.planned, self.done, self.failed, self.running,
                                   self.budget.cost, self.budget.cost_unknown))

    async def run(self, backend: Backend | None) -> None:
        """Run every pending administration (model-free and LLM side by side)."""
        self.report()
        consumers = []
        if backend is not None and self.model_free:
            it = iter(self.model_free)
            size = batch_size(backend, len(self.model_free))
            consumers += [self._consume(it, backend.run, size, False)
                          for _ in range(min(backend.slots, len(self.model_free)))]
        if self.llm:
            it = iter(self.llm)
            consumers += [self._consume(it, self._run_llm, 1, True)
                          for _ in range(min(self.config.concurrency, len(self.llm)))]
        await asyncio.gather(*consumers)
        for group, reason in ((self.model_free, self.broken), (self.llm, self.budget_stop)):
            left = [a for a, _ in group if a.id not in self.started]
            if left and reason:
                self.store.set_not_launched(left, reason)
            self.not_launched += len(left)

    @property
    def stop_reason(self) -> str | None:
        """Return why launching stopped early (a broken backend, a budget), or None."""
        return "; ".join(r for r in (self.broken, self.budget_stop) if r) or None

    async def _run_llm(self, jobs: list[Job]) -> list[Outcome]:
        if self.factory is None:
            self.factory = default_policy_factory()
        out: list[Outcome] = []
        for job in jobs:
            target = self.plan.config.target(job.key.target).llm_target()
            try:
                out.append(await run_llm_job(job, target, self.factory))
            except Exception as exc:  # an execution error is an infrastructure failure
                out.append(JobFailure(f"{type(exc).__name__}: {exc}"))
        return out

    async def _consume(self, it: Iterator[tuple[Administration, Planned]],
                       run: Callable[[list[Job]], Awaitable[list[Outcome]]], size: int,
                       spends: bool) -> None:
        # A budget limits spending: model-free administrations spend nothing and keep running.
        while True:
            if spends and self.budget_stop is None:
                self.budget_stop = self.budget.exceeded()
            if self.budget_stop if spends else self.broken:
                return  # LLM episodes run in the driver: a broken pool does not stop them
            items = list(itertools.islice(it, size))
            if not items:
                return
            jobs = self._start(items)
            try:
                outcomes = await run(jobs)
            except BrokenBackend as exc:
                outcomes = [JobFailure(str(exc))] * len(jobs)
                self.broken = str(exc)
            except Exception as exc:  # the whole batch failed to run
                outcomes = [JobFailure(f"{type(exc).__name__}: {exc}")] * len(jobs)
            finally:
                self.running -= len(jobs)
            for job, outcome in zip(jobs, outcomes, strict=True):
                if isinstance(outcome, JobFailure):
                    self._fail(job, outcome.detail)
                else:
                    self._record(job, outcome)
            self.report()

    def _start(self, items: list[tuple[Administration, Planned]]) -> list[Job]:
        attempts = self.store.start_attempts([a for a, _ in items], self.run_id,
                                             self.backend_name, worker=f"pid={os.getpid()}")
        jobs = []
        lim = self.config.limits
        for (adm, planned), attempt in zip(items, attempts, strict=True):
            self.started.add(adm.id)
            t = planned.target
            jobs.append(Job(attempt, adm.key, t.agent or t.name, self.config.profile,
                            lim.max_steps, lim.deadline_s, self.config.environment))
        self.launched += len(jobs)
        self.running += len(jobs)
        return jobs

    def _fail(self, job: Job, detail: str) -> None:
        self.store.fail_attempt(job.attempt_id, detail)
        self.errors += 1
        self.failed += 1

    def _record(self, job: Job, ev: EpisodeEvidence) -> None:
        try:
            self.store.record(job.attempt_id, ev)
        except DuplicateEpisodeError:
            self.duplicates += 1  # the ledger kept the first episode; this attempt is failed
            return
        self.recorded += 1
        self.done += 1
        self.budget.add(ev)
        if ev.termination != "submitted":
            self.failed += 1


def run_campaign(config: CampaignConfig, store: EvidenceStore, *, backend: str = "inline",
                 workers: int | None = None, progress: ProgressFn | None = None,
                 policy_factory: PolicyFactory | None = None,
                 ray_init: dict[str, Any] | None = None,
                 retry_measurement_failures: bool = False) -> RunResult:
    """Run every planned administration of `config` not yet recorded in `store`.

    With `retry_measurement_failures`, measurement-failure episodes are superseded first.
    """
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r} (expected {', '.join(BACKENDS)})")
    env_problems = [p for p in check_environment(config) if policy_factory is None
                    or "LLM policy" not in p.message]
    if env_problems:
        raise CampaignConfigError(config.file, env_problems)
    plan = plan_campaign(config)
    store.add_secrets(os.environ[t.api_key_env] for t in config.targets
                      if t.api_key_env and os.environ.get(t.api_key_env))
    t0 = time.perf_counter()
    with store.lock():
        store.register_campaign(config.name, plan.digest, config.to_json(), plan.bindings,
                                config.source or None)
        recovered = store.recover()
        run_id = store.begin_run(config.name, backend)
        superseded = (store.supersede_measurement_failures(config.name, run_id)
                      if retry_measurement_failures else 0)
        runner = _Runner(plan, store, run_id, backend, progress, policy_factory)
        try:
            executor = make_backend(backend, workers, ray_init) if runner.model_free else None
            try:
                asyncio.run(runner.run(executor))
            finally:
                if executor is not None:
                    executor.close()
        except BaseException as exc:
            # Holding the lock, every attempt still `started` is this run's: it ends with the
            # run as interrupted (kept; the next run launches its administration again).
            store.recover(f"the run stopped ({type(exc).__name__}) before this attempt "
                          "finished")
            store.end_run(run_id, f"error: {type(exc).__name__}: {exc}")
            raise
        store.end_run(run_id, runner.stop_reason or "finished")
        status = store.status(config.name)
    return RunResult(config.name, backend, recovered, runner.launched, runner.recorded,
                     runner.errors, runner.duplicates, runner.not_launched, runner.stop_reason,
                     time.perf_counter() - t0, status, superseded)
