"""Without starting Ray: a Ray task lost with its worker or node fails its jobs as WorkerLost
(the batch's own error still raises), and the driver keeps loopback addresses as given."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import ray
from ray._private import services

from agentmetrology.records.episode import EpisodeKey
from agentmetrology.run.campaign.backends import Ran, RayBackend
from agentmetrology.run.campaign.ray_loopback import keep_loopback
from agentmetrology.run.campaign.worker import Job, WorkerLost


class _Remote:
    def __init__(self, outcome: Any) -> None:
        self.outcome = outcome

    def remote(self, jobs: list[Job]) -> Any:
        async def result() -> Any:
            if isinstance(self.outcome, BaseException):
                raise self.outcome
            return self.outcome
        return result()


def _backend(outcome: Any) -> RayBackend:
    backend = object.__new__(RayBackend)  # no cluster: only run() is exercised
    backend.ray, backend.remote, backend.places, backend.sent = ray, _Remote(outcome), [], 0
    return backend


def _jobs(n: int) -> list[Job]:
    return [Job(i, EpisodeKey("c", "t", "T3_duplicates", i, "baseline", "L0"), "rule",
                "default", 30) for i in range(n)]


def test_a_task_lost_with_its_node_fails_each_job_as_worker_lost() -> None:
    ran = asyncio.run(_backend(ray.exceptions.NodeDiedError("node 1 died")).run(_jobs(3)))
    assert ran.worker is None and len(ran.outcomes) == 3
    assert all(isinstance(o, WorkerLost) for o in ran.outcomes)
    detail = ran.outcomes[0].detail
    assert detail.startswith("the Ray worker running this batch was lost (")
    assert detail.endswith("); rerun the same command to resume it")


def test_a_batch_that_ran_returns_its_outcomes_and_node() -> None:
    ran = asyncio.run(_backend(("node=abc pid=7", ["x", "y"])).run(_jobs(2)))
    assert ran == Ran(["x", "y"], "node=abc pid=7")  # type: ignore[list-item]


def test_the_batch_s_own_error_is_not_a_lost_worker() -> None:
    err = ray.exceptions.RayTaskError("run_jobs", "Traceback ...", ValueError("bad job"))
    with pytest.raises(ray.exceptions.RayTaskError):
        asyncio.run(_backend(err).run(_jobs(1)))


def test_the_driver_keeps_loopback_addresses() -> None:
    assert keep_loopback() is True
    assert keep_loopback() is True  # once patched, left as it is
    assert services.resolve_ip_for_localhost("127.0.0.1") == "127.0.0.1"
    assert services.resolve_ip_for_localhost("::1") == "::1"
    assert services.resolve_ip_for_localhost("10.1.2.3") == "10.1.2.3"
