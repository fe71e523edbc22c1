"""A Ray cluster of separate nodes on this machine (`ray start --head` plus `ray start
--address`), loopback only, killed whole after the module, whatever happened."""

from __future__ import annotations

import os
import secrets
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import ray

from agentmetrology.run.campaign.ray_cluster import RayOptions, connect
from agentmetrology.run.campaign.ray_loopback import LoopbackNode, free_port, reload_auth
from run.campaign.ray_fixtures import KEY, KEY_ENV

# A lost node is declared dead after about 2 missed health checks of 0.5 s (Ray's default,
# 3 s x 5, would keep a test waiting for its lost tasks for 15 s).
HEALTH_CHECK = {"RAY_health_check_period_ms": "500", "RAY_health_check_timeout_ms": "500",
                "RAY_health_check_failure_threshold": "2",
                "RAY_health_check_initial_delay_ms": "0"}


@dataclass
class Cluster:
    """The running cluster: its GCS address, temp dir, the nodes' environment and nodes."""

    address: str
    temp: Path
    env: dict[str, str]
    nodes: list[LoopbackNode] = field(default_factory=list)

    def add_worker(self, resources: str = "{}") -> tuple[LoopbackNode, str]:
        """Start a 1-CPU node joining the cluster; return it and its Ray node id once alive."""
        before = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        node = LoopbackNode.worker(self.address, 1, self.env, self.temp, resources)
        self.nodes.append(node)
        return node, wait_for_new_node(before, node)


def wait_for_new_node(before: set[str], node: LoopbackNode, timeout_s: float = 60) -> str:
    """Return the id of the node that joined after `before` was taken, once Ray's node table
    shows its CPU (a node's resources appear there shortly after the node itself)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert node.proc.poll() is None, "the Ray node exited"
        new = {n["NodeID"] for n in ray.nodes() if n["Alive"]
               and n.get("Resources", {}).get("CPU", 0) > 0} - before
        if new:
            return new.pop()
        time.sleep(0.2)
    raise AssertionError(f"no Ray node joined within {timeout_s} s")


def alive_nodes() -> list[dict[str, object]]:
    """Return Ray's node table rows of the live nodes."""
    return [n for n in ray.nodes() if n["Alive"]]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A head node (1 CPU) and a worker node (1 CPU), the test process their driver.

    The nodes get the key variable (the LLM actors read it where they run); the nodes and the
    driver share a token of this module's own (Ray's token authentication stays on: another
    user of this machine can reach loopback too).
    """
    temp = Path("/tmp") / f"agm-r2-{os.getpid()}"  # short: Ray's socket paths are limited
    auth = {KEY_ENV: KEY, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16)}
    previous = {name: os.environ.get(name) for name in auth}
    os.environ.update(auth)
    reload_auth()
    env = {**os.environ, **HEALTH_CHECK}
    env.pop("RAY_ADDRESS", None)
    port = free_port()
    made = Cluster(f"127.0.0.1:{port}", temp, env)
    try:
        head = LoopbackNode.head(port, 1, env, temp)
        made.nodes.append(head)
        head.wait_listening(port)
        assert connect(RayOptions(address=made.address))
        wait_for_new_node(set(), head)
        made.add_worker()
        yield made
    finally:
        ray.shutdown()
        for node in made.nodes:
            node.kill()
        shutil.rmtree(temp, ignore_errors=True)
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        reload_auth()
