"""Where model-free administrations run: inline, a process pool, or Ray tasks.

Each backend turns a Job into EpisodeEvidence asynchronously; the driver awaits the result and
is the only process that writes to the store. (LLM administrations run in the driver, or on
Ray actors with the ray backend: run/campaign/ray_llm.py.)
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, NamedTuple, Protocol

from agentmetrology.run.campaign.ray_cluster import (
    BackendError,
    cluster_cpus,
    first_line,
    import_ray,
    ray_worker,
)
from agentmetrology.run.campaign.worker import Job, JobFailure, WorkerLost, init_worker, run_jobs
from agentmetrology.store.evidence import EpisodeEvidence

Outcome = EpisodeEvidence | JobFailure


class Ran(NamedTuple):
    """A batch's outcomes, in order, and where it ran (None: where its attempts' start says)."""

    outcomes: list[Outcome]
    worker: str | None = None

BACKENDS = ("inline", "process", "ray")


class BrokenBackend(RuntimeError):
    """Raised when a backend can run nothing more (e.g. a pool worker died)."""


class Backend(Protocol):
    """Runs batches of model-free jobs; `slots` batches may be in flight at once."""

    name: str
    slots: int
    workers: int

    async def run(self, jobs: list[Job]) -> Ran:
        """Return the outcome of each job of a batch, in order, and where they ran."""
        ...

    def close(self) -> None:
        """Release workers."""
        ...


class InlineBackend:
    """Runs each job in the driver, one at a time (the reference for determinism)."""

    name = "inline"
    slots = 1
    workers = 1

    async def run(self, jobs: list[Job]) -> Ran:
        """Run the jobs now, then let other tasks (LLM episodes) have the loop."""
        out = run_jobs(jobs)
        await asyncio.sleep(0)
        return Ran(out)

    def close(self) -> None:
        """Nothing to release."""


# How long close() waits for workers to exit before terminating, then killing, them.
CLOSE_WAIT_S = 3.0


def init_pool_worker(driver_pid: int) -> None:
    """Pool initializer: ignore SIGINT (Ctrl-C reaches the whole process group; the driver
    alone decides how the run ends) and exit when the driver dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    init_worker(driver_pid)


@contextlib.contextmanager
def _ignoring_sigint() -> Iterator[None]:
    """Ignore further Ctrl-C while cleaning up (main thread only), then restore the handler."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class ProcessBackend:
    """A ProcessPoolExecutor; workers start from a clean forkserver and die with the driver."""

    name = "process"

    def __init__(self, workers: int | None = None) -> None:
        n = workers or os.cpu_count() or 1
        # forkserver: workers never inherit the driver's threads (rich's refresher, sqlite).
        methods = multiprocessing.get_all_start_methods()
        ctx: Any = multiprocessing.get_context("forkserver" if "forkserver" in methods
                                               else "spawn")
        if hasattr(ctx, "set_forkserver_preload"):
            ctx.set_forkserver_preload(["agentmetrology.run.campaign.worker"])
            # Started with SIGINT ignored, the forkserver and every worker it forks ignore
            # Ctrl-C from birth (the disposition is inherited), even while still importing:
            # only the driver decides how a run ends, and nothing prints a traceback.
            from multiprocessing import forkserver

            with _ignoring_sigint():
                forkserver.ensure_running()
        self.pool = ProcessPoolExecutor(max_workers=n, mp_context=ctx,
                                        initializer=init_pool_worker, initargs=(os.getpid(),))
        # Two batches per worker keep workers busy while the driver records the previous one.
        self.workers = n
        self.slots = 2 * n

    async def run(self, jobs: list[Job]) -> Ran:
        """Run a batch in a worker process."""
        loop = asyncio.get_running_loop()
        try:
            return Ran(await loop.run_in_executor(self.pool, run_jobs, jobs))
        except BrokenProcessPool as exc:
            raise BrokenBackend(f"a worker process died ({exc}); rerun the same command to "
                                "resume") from exc

    def close(self) -> None:
        """Stop the pool within a bounded time, dropping jobs that never started.

        Workers get CLOSE_WAIT_S to exit, then are terminated and, if need be, killed: a
        Ctrl-C never waits on a busy or stuck worker, and a second Ctrl-C during the cleanup is
        ignored rather than breaking it (no "Exception ignored in atexit callback").
        """
        with _ignoring_sigint():
            processes = list((getattr(self.pool, "_processes", None) or {}).values())
            self.pool.shutdown(wait=False, cancel_futures=True)
            deadline = time.monotonic() + CLOSE_WAIT_S
            for p in processes:
                p.join(max(0.0, deadline - time.monotonic()))
            for p in processes:
                if p.is_alive():
                    p.terminate()
                    p.join(1.0)
                if p.is_alive():
                    p.kill()
                    p.join(1.0)
            # The pool's manager thread notices the dead workers and exits; joining it here
            # leaves nothing for the interpreter's exit hook to wait on.
            manager = getattr(self.pool, "_executor_manager_thread", None)
            if isinstance(manager, threading.Thread):
                manager.join(CLOSE_WAIT_S)


class RayBackend:
    """Administrations as Ray tasks on the cluster `run_campaign` connected to
    (`ray_cluster.connect`, before the store is touched; it also shuts Ray down)."""

    name = "ray"

    def __init__(self, workers: int | None = None) -> None:
        self.ray = import_ray()
        # A retry would be a new attempt the ledger never saw: Ray must not retry on its own.
        self.remote = self.ray.remote(num_cpus=1, max_retries=0)(run_jobs_on_ray)
        self.workers = workers or cluster_cpus()
        self.slots = 2 * self.workers
        self.places = cpu_places(self.ray)
        self.sent = 0

    async def run(self, jobs: list[Job]) -> Ran:
        """Run a batch as one Ray task and await its result and the node it ran on.

        A task whose worker or node died (not an error of the jobs: run_jobs returns those)
        fails each of its jobs as WorkerLost: their administrations stay pending.
        """
        errors = self.ray.exceptions
        remote = self.remote
        if len(set(self.places)) > 1:
            # Batches go to the nodes in turn, one per CPU: Ray's own SPREAD reuses the
            # driver's leased workers and was seen sending 568 of 600 episodes to one of two
            # nodes. Soft: a node gone meanwhile, Ray runs the batch elsewhere.
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            node = self.places[self.sent % len(self.places)]
            remote = remote.options(
                scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=True))
        self.sent += 1
        try:
            worker, outcomes = await remote.remote(jobs)
        except errors.RayTaskError:
            raise  # the batch itself failed to run: the runner fails its jobs
        except errors.RayError as exc:
            lost = WorkerLost(f"the Ray worker running this batch was lost "
                              f"({first_line(exc)[:200]}); rerun the same command to resume it")
            return Ran([lost] * len(jobs))
        return Ran(outcomes, worker)

    def close(self) -> None:
        """Nothing to release: Ray stays up for whoever connected it."""


def cpu_places(ray: Any) -> list[str]:
    """Return the live nodes' ids, each once per CPU it has, interleaved (a 2-CPU and a 1-CPU
    node: a, b, a)."""
    cpus = {n["NodeID"]: int(n.get("Resources", {}).get("CPU", 0)) for n in ray.nodes()
            if n["Alive"]}
    return [node for k in range(max(cpus.values(), default=0))
            for node in sorted(cpus) if cpus[node] > k]


def run_jobs_on_ray(jobs: list[Job]) -> tuple[str, list[Outcome]]:
    """The Ray task: where it runs (`node=<id> pid=<pid>`) and the outcomes of a batch."""
    return ray_worker(), run_jobs(jobs)


def batch_size(backend: Backend, pending: int) -> int:
    """Return how many jobs to send at once: enough to amortise a round trip, few enough that
    every worker stays busy to the end and a crash interrupts little (at most 16)."""
    if backend.name == "inline":
        return 1
    return max(1, min(16, pending // (4 * backend.slots)))


def make_backend(name: str, workers: int | None = None) -> Backend:
    """Return a started backend by name (ray: on the cluster Ray is already connected to)."""
    if name == "inline":
        return InlineBackend()
    if name == "process":
        return ProcessBackend(workers)
    if name == "ray":
        return RayBackend(workers)
    raise BackendError(f"unknown backend {name!r} (expected {', '.join(BACKENDS)})")
