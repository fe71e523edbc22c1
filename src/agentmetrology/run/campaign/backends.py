"""Where model-free administrations run: inline, a process pool, or Ray tasks.

Each backend turns a Job into EpisodeEvidence asynchronously; the driver awaits the result and
is the only process that writes to the store.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from agentmetrology.run.campaign.worker import Job, JobFailure, init_worker, run_jobs
from agentmetrology.store.evidence import EpisodeEvidence

Outcome = EpisodeEvidence | JobFailure

BACKENDS = ("inline", "process", "ray")


class BackendError(RuntimeError):
    """Raised when a backend cannot start (unknown name, Ray not installed, no cluster)."""


class BrokenBackend(RuntimeError):
    """Raised when a backend can run nothing more (e.g. a pool worker died)."""


class Backend(Protocol):
    """Runs batches of model-free jobs; `slots` batches may be in flight at once."""

    name: str
    slots: int
    workers: int

    async def run(self, jobs: list[Job]) -> list[Outcome]:
        """Return the outcome of each job of a batch, in order."""
        ...

    def close(self) -> None:
        """Release workers."""
        ...


class InlineBackend:
    """Runs each job in the driver, one at a time (the reference for determinism)."""

    name = "inline"
    slots = 1
    workers = 1

    async def run(self, jobs: list[Job]) -> list[Outcome]:
        """Run the jobs now, then let other tasks (LLM episodes) have the loop."""
        out = run_jobs(jobs)
        await asyncio.sleep(0)
        return out

    def close(self) -> None:
        """Nothing to release."""


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
        self.pool = ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=init_worker,
                                        initargs=(os.getpid(),))
        # Two batches per worker keep workers busy while the driver records the previous one.
        self.workers = n
        self.slots = 2 * n

    async def run(self, jobs: list[Job]) -> list[Outcome]:
        """Run a batch in a worker process."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.pool, run_jobs, jobs)
        except BrokenProcessPool as exc:
            raise BrokenBackend(f"a worker process died ({exc}); rerun the same command to "
                                "resume") from exc

    def close(self) -> None:
        """Stop the pool, dropping jobs that never started."""
        self.pool.shutdown(wait=True, cancel_futures=True)


class RayBackend:
    """Administrations as Ray tasks on whatever cluster `ray.init` connects to."""

    name = "ray"

    def __init__(self, workers: int | None = None, init: dict[str, Any] | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise BackendError("the ray backend needs the optional extra: pip install "
                               "'agentmetrology[ray]'") from None
        self.ray = ray
        self.owns = not ray.is_initialized()
        if self.owns:
            # RAY_ADDRESS (or `init`) picks the cluster; without one Ray starts a local one.
            ray.init(**{"ignore_reinit_error": True, "log_to_driver": False, **(init or {})})
        cpus = int(ray.cluster_resources().get("CPU", 1))
        # A retry would be a new attempt the ledger never saw: Ray must not retry on its own.
        self.remote = ray.remote(num_cpus=1, max_retries=0)(run_jobs)
        self.workers = workers or max(cpus, 1)
        self.slots = 2 * self.workers

    async def run(self, jobs: list[Job]) -> list[Outcome]:
        """Run a batch as one Ray task and await its result."""
        result: list[Outcome] = await self.remote.remote(jobs)
        return result

    def close(self) -> None:
        """Shut Ray down if this backend started it."""
        if self.owns:
            self.ray.shutdown()


def batch_size(backend: Backend, pending: int) -> int:
    """Return how many jobs to send at once: enough to amortise a round trip, few enough that
    every worker stays busy to the end and a crash interrupts little (at most 16)."""
    if backend.name == "inline":
        return 1
    return max(1, min(16, pending // (4 * backend.slots)))


def make_backend(name: str, workers: int | None = None,
                 ray_init: dict[str, Any] | None = None) -> Backend:
    """Return a started backend by name."""
    if name == "inline":
        return InlineBackend()
    if name == "process":
        return ProcessBackend(workers)
    if name == "ray":
        return RayBackend(workers, ray_init)
    raise BackendError(f"unknown backend {name!r} (expected {', '.join(BACKENDS)})")
