"""LLM administrations on Ray: async actors run episodes, the driver records what they stream.

Each actor (`LLMWorker`, `max_concurrency` episodes at once) runs an episode through the same
`run_llm_job` as the driver does inline, and streams it back as a Ray streaming generator: one
item per provider request as soon as its response arrives, then the episode's outcome. The
driver (`LLMActors`) writes each request to the ledger the moment its item arrives, so the
store keeps its single writer.

A dead actor (killed, crashed, its node lost): every episode it was running ends as a failed
attempt (no episode recorded, the administration stays pending and runs again on the next
`campaign run`); the requests it had already streamed are in the ledger. Each episode's next
step waits until the driver has received every answered request (the stream runs with
backpressure 1, see GatedPolicy), so what is lost is at most one request per running episode:
sent and not yet answered, or answered and still on its way to the driver (with `max_retries`,
the retries within that one step too). That is what the inline backend loses when the driver
dies. The actor is replaced (at most REPLACEMENTS times per actor per run; after that the pool
is broken and no further LLM episode is launched).

A killed driver (kill -9): its actors die with it (Ray stops the actors a dead driver owned;
on the driver's node each actor also watches the driver's pid and exits within WATCH_S), so
at most the one request in flight per running episode is answered without being recorded, or
two where the driver had received an answered request but not yet written it (the actor,
released by the stream, sends its next request within WATCH_S); the attempts stay `started`
and the next run marks them interrupted and runs them again. On
another node, the actors run on until Ray notices the driver is gone (its own detection
time); requests they make meanwhile are answered but never recorded.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from typing import Any

from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.records.clock import Clock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.policy import Brief, Decision, Move, Policy, Question
from agentmetrology.records.tools import Observation
from agentmetrology.run.campaign.llm import (
    AttemptSink,
    LLMOutcome,
    PolicyFactory,
    default_policy_factory,
    run_llm_job,
)
from agentmetrology.run.campaign.ray_cluster import (
    BackendError,
    first_line,
    import_ray,
    ray_worker,
)
from agentmetrology.run.campaign.worker import (
    Job,
    JobFailure,
    WorkerLost,
    process_gone,
    watch_process,
)

# How often one actor slot may be replaced in a run before the pool counts as broken.
REPLACEMENTS = 3
# How often an actor on the driver's node checks that the driver still runs (a syscall).
WATCH_S = 0.005

# ("attempt", BillableAttempt) | ("done", (LLMOutcome, worker)) | ("error", str)
Item = tuple[str, Any]


class LLMWorker:
    """The actor: runs LLM episodes concurrently on its own event loop."""

    def __init__(self, factory: PolicyFactory | None, driver: tuple[str, int]) -> None:
        # On the driver's node, exit the moment the driver dies (kill -9): Ray would stop this
        # actor only once it notices, and requests made meanwhile could never be recorded.
        node, pid = driver
        if node == import_ray().get_runtime_context().get_node_id() and not process_gone(pid):
            watch_process(pid, WATCH_S)
        self.factory = factory if factory is not None else default_policy_factory()
        self.worker = ray_worker()

    def probe(self, env_names: list[str]) -> tuple[int, list[str]]:
        """Return this actor's pid and which of `env_names` its environment lacks."""
        return os.getpid(), [n for n in env_names if not os.environ.get(n)]

    async def run(self, job: Job, target: LLMTarget) -> AsyncIterator[Item]:
        """Run one administration, yielding each answered request, then its outcome.

        Called with backpressure 1, each `yield` resumes once the driver has the item; the
        episode's next step waits for that (GatedPolicy), so a request is never sent while an
        answered one is still on its way to the ledger.
        """
        queue: asyncio.Queue[BillableAttempt] = asyncio.Queue()
        drained = asyncio.Event()
        drained.set()

        def sink(attempt: BillableAttempt) -> None:
            drained.clear()
            queue.put_nowait(attempt)

        def factory(t: LLMTarget, clock: Clock) -> Policy:
            return GatedPolicy(self.factory(t, clock), drained)

        task = asyncio.ensure_future(run_llm_job(job, target, factory, sink))
        try:
            while not task.done():
                get = asyncio.ensure_future(queue.get())
                await asyncio.wait({get, task}, return_when=asyncio.FIRST_COMPLETED)
                if get.done():
                    yield ("attempt", get.result())
                    if queue.empty():
                        drained.set()
                else:
                    get.cancel()
            while not queue.empty():
                yield ("attempt", queue.get_nowait())
        finally:
            # The stream was closed or cancelled (its driver gone): no request for nobody.
            task.cancel()
        try:
            outcome: LLMOutcome = task.result()
        except Exception as exc:  # an execution error is an infrastructure failure
            yield ("error", f"{type(exc).__name__}: {exc}")
            return
        yield ("done", (outcome, self.worker))


class GatedPolicy:
    """Wraps a policy so that each step waits until the driver has every answered request."""

    def __init__(self, inner: Policy, drained: asyncio.Event) -> None:
        self.inner, self.drained = inner, drained
        self.name, self.levels = inner.name, inner.levels

    def reset(self, brief: Brief) -> None:
        """Start an episode."""
        self.inner.reset(brief)

    async def act(self, observation: Observation | None) -> Move:
        """Return the inner policy's move once the driver has the previous answers."""
        await self.drained.wait()
        return await self.inner.act(observation)

    async def decide(self, question: Question) -> Decision:
        """Return the inner decision once the driver has the previous answers."""
        await self.drained.wait()
        return await self.inner.decide(question)

    def take_attempts(self) -> list[BillableAttempt]:
        """Return the inner policy's billable attempts."""
        return self.inner.take_attempts()

    def __getattr__(self, name: str) -> Any:
        # The inner policy's extras (set_attempt_sink, aclose, notes) stay visible.
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)


class LLMActors:
    """The driver's side: `actors` LLMWorker actors, each with `per_actor` episodes in flight."""

    def __init__(self, actors: int, per_actor: int, factory: PolicyFactory | None,
                 key_envs: list[str], label: str) -> None:
        self.ray = import_ray()
        self.per_actor, self.factory, self.label = per_actor, factory, label
        self.cls = self.ray.remote(LLMWorker)
        self.driver = (self.ray.get_runtime_context().get_node_id(), os.getpid())
        self.generation = [0] * actors
        self.handles = [self._spawn(i) for i in range(actors)]
        self.broken: str | None = None
        # One probe per actor: every actor is up and has the key variables before any episode.
        probes = self.ray.get([h.probe.remote(key_envs) for h in self.handles])
        missing = sorted({n for _, lack in probes for n in lack})
        if missing:
            self.close()
            raise BackendError(f"the Ray workers do not have {', '.join(missing)} in their "
                               "environment: export it where the Ray nodes were started (keys "
                               "are never sent through Ray)")

    @property
    def slots(self) -> int:
        """Return how many LLM episodes may be in flight at once."""
        return len(self.handles) * self.per_actor

    def name(self, i: int) -> str:
        """Return the Ray name of actor slot `i`'s current actor (tests look actors up by it)."""
        return f"{self.label}-{i}.{self.generation[i]}"

    def _spawn(self, i: int) -> Any:
        # Ray must not restart an actor or retry a call on its own: a retry would be a
        # new attempt the ledger never saw. A replacement is made here, explicitly.
        return self.cls.options(name=self.name(i), max_concurrency=self.per_actor,
                                num_cpus=0, max_restarts=0, max_task_retries=0,
                                scheduling_strategy=self._placement(i)).remote(self.factory,
                                                                               self.driver)

    def _placement(self, i: int) -> Any:
        """Return where slot i's actor goes: the live nodes with CPUs in turn, a replacement
        on the next one. Hard affinity: an actor whose node is gone before it starts dies, and
        is replaced like any dead actor.

        Ray's SPREAD, and a soft affinity, may put every zero-CPU actor on the driver's node
        while another node's CPU is busy.
        """
        nodes = sorted(n["NodeID"] for n in self.ray.nodes()
                       if n["Alive"] and n.get("Resources", {}).get("CPU", 0) > 0)
        if not nodes:
            return "SPREAD"
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        return NodeAffinitySchedulingStrategy(nodes[(i + self.generation[i]) % len(nodes)],
                                              soft=False)

    async def run(self, slot: int, job: Job, target: LLMTarget,
                  sink: AttemptSink) -> tuple[LLMOutcome | JobFailure, str | None]:
        """Run a job on slot's actor; hand each streamed request to `sink` as it arrives.

        Returns the outcome and where the actor ran (None when that is unknown)."""
        i = slot % len(self.handles)
        handle = self.handles[i]
        try:
            stream = handle.run.options(num_returns="streaming",
                                        _generator_backpressure_num_objects=1)
            async for ref in stream.remote(job, target):
                kind, value = await ref
                if kind == "attempt":
                    sink(value)
                elif kind == "done":
                    outcome, worker = value
                    return outcome, worker
                else:
                    return JobFailure(str(value)), None
        except self.ray.exceptions.RayError as exc:
            errors = self.ray.exceptions
            if isinstance(exc, errors.RayTaskError) and not isinstance(exc, errors.RayActorError):
                raise  # the actor's code failed, not the actor: the runner fails the job
            # The actor died, or its node with the stream's items (ObjectLostError).
            self._replace(i, handle)
            return WorkerLost(f"the Ray actor running this episode died "
                              f"({first_line(exc)[:200]}); rerun the "
                              "same command to resume it"), None
        return JobFailure("the Ray actor ended the episode without a result"), None

    def _replace(self, i: int, dead: Any) -> None:
        """Replace slot i's actor once, however many of its episodes report its death."""
        if self.handles[i] is not dead or self.broken:
            return
        if self.generation[i] >= REPLACEMENTS:
            self.broken = (f"Ray actor slot {i} lost {self.generation[i] + 1} actor(s) in this "
                           "run; rerun the same command to resume")
            return
        self.generation[i] += 1
        self.handles[i] = self._spawn(i)

    def close(self) -> None:
        """Kill the actors (their in-flight episodes end; nothing more is recorded)."""
        for h in self.handles:
            self.ray.kill(h, no_restart=True)
