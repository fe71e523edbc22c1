"""Running a campaign: what is not yet recorded runs, resumably, within budget, one writer.

Resumption: the run takes the store's lock, marks attempts left `started` by a dead run as
`interrupted` (kept, never replaced), and launches every administration without an episode.
The episodes table accepts one row per key, so nothing is ever recorded twice. With
`retry_measurement_failures`, episodes that ended as measurement failures (infra_error,
cancelled) are first moved to history (superseded, cost kept) so their administrations run again.

Ray: with the ray backend, LLM administrations run on Ray actors (run/campaign/ray_llm.py) that
stream each answered request and then the episode back; the driver records both, as inline.

Spending: every provider request of an LLM episode is written to the ledger
(`billable_attempts`) when its response arrives, and the budget counts it at once; when the
episode is recorded, its cost replaces what its requests added, so nothing is counted twice.

An endpoint that fails every episode the same way (connection refused, the key not set, HTTP 401)
stops the run early: after INFRA_STOP_AFTER LLM episodes in a row ended as measurement failures
with the same reason and none succeeded in this run, no further LLM episode is launched; the
rest are left "not launched" with that reason, and the next run resumes them.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field

from agentmetrology.records.episode import BillableAttempt
from agentmetrology.run.campaign.backends import (
    BACKENDS,
    Backend,
    BackendError,
    BrokenBackend,
    Ran,
    batch_size,
    make_backend,
)
from agentmetrology.run.campaign.budget import Budget
from agentmetrology.run.campaign.config import check_environment
from agentmetrology.run.campaign.llm import (
    LLMOutcome,
    PolicyFactory,
    default_policy_factory,
    run_llm_job,
)
from agentmetrology.run.campaign.plan import Plan, Planned, plan_campaign
from agentmetrology.run.campaign.problems import CampaignConfigError
from agentmetrology.run.campaign.ray_cluster import (
    RayOptions,
    check_address,
    connect,
    import_ray,
    llm_slots,
)
from agentmetrology.run.campaign.ray_llm import LLMActors
from agentmetrology.run.campaign.spec import CampaignConfig
from agentmetrology.run.campaign.worker import Job, JobFailure, WorkerLost
from agentmetrology.store.evidence import EpisodeEvidence
from agentmetrology.store.ledger import Administration, DuplicateEpisodeError
from agentmetrology.store.status import CampaignStatus
from agentmetrology.store.store import EvidenceStore

__all__ = ["BACKENDS", "INFRA_STOP_AFTER", "BackendError", "Budget", "Progress", "RayOptions",
           "RunResult", "run_campaign"]

# LLM episodes in a row that fail the same way, with no success in the run, before it stops.
# Three: one failure can be bad luck, two identical ones a coincidence of a flaky moment; three
# in a row, each already past its own retries, means the endpoint itself is not usable.
INFRA_STOP_AFTER = 3


@dataclass(frozen=True, slots=True)
class Progress:
    """A snapshot for progress displays."""

    planned: int
    done: int
    failed_agent: int  # recorded episodes the agent did not complete
    failed_infra: int  # measurement failures (infra_error, cancelled) and execution errors
    running: int
    cost: float  # the known part of the cost
    cost_unknown: int  # episodes or unfinished attempts whose cost is unknown

    @property
    def failed(self) -> int:
        """Return every failure, agent and infrastructure."""
        return self.failed_agent + self.failed_infra

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
    # Targets whose recorded episodes are all measurement failures: their most frequent
    # reasons (reason, episodes). Nothing was measured of them, so the run is not a success.
    unmeasured: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


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
        # Errored administrations are pending: they are counted again when they run.
        self.failed_agent, self.failed_infra = status.total.failed_agent, status.total.failed_infra
        self.running = self.launched = self.recorded = self.errors = self.duplicates = 0
        self.broken: str | None = None  # the backend can run nothing more
        self.budget_stop: str | None = None  # a budget is reached: no more LLM launches
        self.infra_stop: str | None = None  # every LLM episode fails the same way
        self.llm_successes = 0  # LLM episodes of this run that were not measurement failures
        self.streak: tuple[str | None, int] = (None, 0)  # the last failure reason, times in a row
        self.failures: dict[int, str] = {}  # attempt id -> why its LLM episode failed
        self.not_launched = 0
        self.actors: LLMActors | None = None
        self.started: set[int] = set()
        by_key = plan.by_key()
        pending = [(a, by_key[a.key]) for a in store.pending(self.config.name)]
        self.model_free = [p for p in pending if p[1].target.model_free]
        self.llm = [p for p in pending if not p[1].target.model_free]

    def report(self) -> None:
        """Send a progress snapshot."""
        if self.progress is not None:
            self.progress(Progress(self.planned, self.done, self.failed_agent, self.failed_infra,
                                   self.running, self.budget.cost, self.budget.cost_unknown))

    async def run(self, backend: Backend | None, actors: LLMActors | None = None) -> None:
        """Run every pending administration (model-free and LLM side by side); LLM ones on
        `actors` when given, else in the driver."""
        self.report()
        self.actors = actors
        consumers = []
        if backend is not None and self.model_free:
            it = iter(self.model_free)
            size = batch_size(backend, len(self.model_free))
            consumers += [self._consume(it, backend.run, size, False)
                          for _ in range(min(backend.slots, len(self.model_free)))]
        if self.llm:
            it = iter(self.llm)
            slots = actors.slots if actors is not None else self.config.concurrency
            consumers += [self._consume(it, self._llm_slot(i), 1, True)
                          for i in range(min(slots, len(self.llm)))]
        await asyncio.gather(*consumers)
        for group, reason in ((self.model_free, self.broken),
                              (self.llm, self.infra_stop or self.budget_stop
                               or self.actors_broken)):
            left = [a for a, _ in group if a.id not in self.started]
            if left and reason:
                self.store.set_not_launched(left, reason)
            self.not_launched += len(left)

    @property
    def stop_reason(self) -> str | None:
        """Return why launching stopped early (a broken backend, a failing endpoint, a budget),
        or None; redacted as the ledger keeps it (a provider's error may echo a key)."""
        reason = "; ".join(r for r in (self.broken, self.infra_stop, self.budget_stop,
                                       self.actors_broken) if r)
        return self.store.redactor.text(reason) if reason else None

    @property
    def actors_broken(self) -> str | None:
        """Return why the Ray actors can run no more LLM episodes, or None."""
        return self.actors.broken if self.actors is not None else None

    def _sink(self, attempt_id: int) -> Callable[[BillableAttempt], None]:
        """Return the callback that writes an attempt's provider requests as they are answered."""
        def record(ba: BillableAttempt) -> None:
            if self.store.record_billable(attempt_id, ba):
                self.budget.bill(attempt_id, ba)
        return record

    def _llm_slot(self, slot: int) -> Callable[[list[Job]], Awaitable[Ran]]:
        """Return the runner of LLM consumer `slot` (bound to one actor on Ray); its batches
        hold one job."""
        async def run(jobs: list[Job]) -> Ran:
            (job,) = jobs
            return await self._run_llm(slot, job)
        return run

    async def _run_llm(self, slot: int, job: Job) -> Ran:
        target = self.plan.config.target(job.key.target).llm_target()
        result: LLMOutcome | JobFailure
        worker = None
        if self.actors is not None:
            result, worker = await self.actors.run(slot, job, target, self._sink(job.attempt_id))
        else:
            if self.factory is None:
                self.factory = default_policy_factory()
            try:
                result = await run_llm_job(job, target, self.factory,
                                           self._sink(job.attempt_id))
            except Exception as exc:  # an execution error is an infrastructure failure
                result = JobFailure(f"{type(exc).__name__}: {exc}")
        if isinstance(result, JobFailure):
            return Ran([result], worker)
        if result.failure is not None:
            self.failures[job.attempt_id] = f"target {job.key.target}: {result.failure}"
        return Ran([result.evidence], worker)

    def _llm_result(self, attempt_id: int, failure: str | None) -> None:
        """Track LLM outcomes; stop launching when every one so far fails the same way."""
        if failure is None:
            self.llm_successes += 1
            self.streak = (None, 0)
            return
        last, n = self.streak
        self.streak = (failure, n + 1 if failure == last else 1)
        if self.llm_successes == 0 and self.streak[1] >= INFRA_STOP_AFTER \
                and self.infra_stop is None:
            self.infra_stop = (f"{failure} ({self.streak[1]} LLM episodes in a row failed this "
                               "way and none succeeded; fix it and run again to resume)")

    async def _consume(self, it: Iterator[tuple[Administration, Planned]],
                       run: Callable[[list[Job]], Awaitable[Ran]], size: int,
                       spends: bool) -> None:
        # A budget limits spending: model-free administrations spend nothing and keep running.
        while True:
            if spends and self.budget_stop is None:
                self.budget_stop = self.budget.exceeded()
            if (self.budget_stop or self.infra_stop or self.actors_broken) if spends \
                    else self.broken:
                return  # LLM episodes run apart from model-free ones: one stopping is not both
            items = list(itertools.islice(it, size))
            if not items:
                return
            jobs = self._start(items)
            self.report()  # a launch changes `running`: shown now, not when a job ends
            worker = None  # where the batch ran, when it differs from the driver
            try:
                outcomes, worker = await run(jobs)
            except BrokenBackend as exc:
                outcomes = [JobFailure(str(exc))] * len(jobs)
                self.broken = str(exc)
            except Exception as exc:  # the whole batch failed to run
                outcomes = [JobFailure(f"{type(exc).__name__}: {exc}")] * len(jobs)
            finally:
                self.running -= len(jobs)
            for job, outcome in zip(jobs, outcomes, strict=True):
                if isinstance(outcome, WorkerLost):
                    self._fail(job, outcome.detail, worker)
                    continue  # a dead worker says nothing about the endpoint
                if isinstance(outcome, JobFailure):
                    self._fail(job, outcome.detail, worker)
                    # One line, as every stop reason: a detail can run over several.
                    first = (outcome.detail.strip().splitlines() or [""])[0]
                    failure: str | None = f"target {job.key.target}: {first}"
                else:
                    failure = self.failures.pop(job.attempt_id, None)
                    if not self._record(job, outcome, worker):
                        continue  # a duplicate says nothing about the endpoint
                if spends:
                    self._llm_result(job.attempt_id, failure)
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

    def _fail(self, job: Job, detail: str, worker: str | None = None) -> None:
        self.store.fail_attempt(job.attempt_id, detail, worker)
        self.errors += 1
        self.failed_infra += 1

    def _record(self, job: Job, ev: EpisodeEvidence, worker: str | None) -> bool:
        """Record an episode (and where it ran, when given); return False if its key already
        had one."""
        try:
            self.store.record(job.attempt_id, ev, worker)
        except DuplicateEpisodeError:
            self.duplicates += 1  # the ledger kept the first episode; this attempt is failed
            return False
        self.recorded += 1
        self.done += 1
        self.budget.add(job.attempt_id, ev)
        if ev.measurement_failure:
            self.failed_infra += 1
        elif ev.termination != "submitted":
            self.failed_agent += 1
        return True


def run_campaign(config: CampaignConfig, store: EvidenceStore, *, backend: str = "inline",
                 workers: int | None = None, progress: ProgressFn | None = None,
                 policy_factory: PolicyFactory | None = None,
                 ray: RayOptions | None = None,
                 retry_measurement_failures: bool = False) -> RunResult:
    """Run every planned administration of `config` not yet recorded in `store`.

    With `retry_measurement_failures`, measurement-failure episodes are superseded first. With
    the ray backend, `ray` says where Ray runs (default: a new local instance) and how many LLM
    actors run how many episodes each.
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
    # Ray starts before the store is written (a cluster that cannot be reached changes
    # nothing), and only if something is left to run: resuming a finished campaign starts no
    # cluster. The store's lock is held from its opening, so what is pending cannot change.
    options = ray or RayOptions()
    needs_ray = backend == "ray" and (retry_measurement_failures
                                      or _anything_to_run(store, config.name))
    if backend == "ray" and not needs_ray and (options.address or os.environ.get("RAY_ADDRESS")):
        check_address(options.address or os.environ["RAY_ADDRESS"])  # a typo is still refused
    owns_ray = needs_ray and connect(options)
    actors = None
    try:
        if needs_ray and any(not t.model_free for t in config.targets):
            n, per_actor = llm_slots(options, config.concurrency)
            actors = LLMActors(n, per_actor, policy_factory, sorted(
                {t.api_key_env for t in config.targets if t.api_key_env}), "agm-llm")
        recovered, superseded, runner, status = _run_locked(
            config, plan, store, backend, workers, actors, progress, policy_factory,
            retry_measurement_failures)
        unmeasured = {t: store.failure_reasons(config.name, t)
                      for t in status.unmeasured_targets}
    finally:
        if actors is not None:
            actors.close()
        if owns_ray:
            import_ray().shutdown()
    return RunResult(config.name, backend, recovered, runner.launched, runner.recorded,
                     runner.errors, runner.duplicates, runner.not_launched, runner.stop_reason,
                     time.perf_counter() - t0, status, superseded, unmeasured)


def _anything_to_run(store: EvidenceStore, campaign: str) -> bool:
    """Return True unless the store holds an episode for every planned key of `campaign`."""
    return campaign not in store.campaigns() or bool(store.pending(campaign))


def _run_locked(config: CampaignConfig, plan: Plan, store: EvidenceStore, backend: str,
                workers: int | None, actors: LLMActors | None,
                progress: ProgressFn | None, policy_factory: PolicyFactory | None,
                retry: bool) -> tuple[int, int, _Runner, CampaignStatus]:
    """Run the campaign holding the store's lock; return (attempts recovered, measurement
    failures superseded, the runner, the campaign's status afterwards)."""
    with store.lock():
        store.register_campaign(config.name, plan.digest, config.to_json(), plan.bindings,
                                config.source or None)
        recovered = store.recover()
        run_id = store.begin_run(config.name, backend)
        superseded = store.supersede_measurement_failures(config.name, run_id) if retry else 0
        runner = _Runner(plan, store, run_id, backend, progress, policy_factory)
        try:
            executor = make_backend(backend, workers) if runner.model_free else None
            try:
                asyncio.run(runner.run(executor, actors))
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
    return recovered, superseded, runner, status
