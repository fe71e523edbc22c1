"""Campaigns on a Ray cluster of separate nodes on one machine: every address on loopback,
episodes on every node (each attempt names the node it ran on), the driver the store's only
writer, and a worker node lost mid-campaign costs no episode and no billed request twice."""

from __future__ import annotations

import ipaddress
import itertools
from pathlib import Path
from typing import Any

import psutil
import ray

from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.run.campaign.execute import Progress
from agentmetrology.run.campaign.ray_cluster import RayOptions
from agentmetrology.store import EvidenceStore
from agentmetrology.store.verify import verify_store
from run.campaign.campaign_fixtures import model_free, query, with_llm
from run.campaign.ray_fixtures import KEY_ENV, ledger_invariants
from run.campaign.ray_nodes import Cluster, alive_nodes, cluster
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI, Reply

__all__ = ["cluster"]  # the module-scoped fixture, used by name


def _loopback(ip: str) -> bool:
    addr = ipaddress.ip_address(ip)
    mapped = getattr(addr, "ipv4_mapped", None)
    return (mapped or addr) == ipaddress.ip_address("127.0.0.1")


def _cluster_processes(c: Cluster) -> list[psutil.Process]:
    procs = []
    for node in c.nodes:
        for pid in node.pids():
            try:
                procs.append(psutil.Process(pid))
            except psutil.NoSuchProcess:
                continue
    return procs


def test_every_node_advertises_and_listens_on_loopback_only(cluster: Cluster) -> None:
    nodes = alive_nodes()
    assert len(nodes) == 2
    assert {n["NodeManagerAddress"] for n in nodes} == {"127.0.0.1"}
    assert ray.get_runtime_context().gcs_address == cluster.address
    listening, connected = [], []
    for proc in [*_cluster_processes(cluster), psutil.Process()]:
        try:
            conns = proc.net_connections(kind="inet")
        except psutil.NoSuchProcess:
            continue
        listening += [(proc.name(), c.laddr) for c in conns if c.status == psutil.CONN_LISTEN]
        connected += [(proc.name(), c.raddr) for c in conns if c.raddr]
    names = {name for name, _ in listening}
    # The GCS, both raylets and the agents of both nodes listen; each on 127.0.0.1 only.
    assert {"gcs_server", "raylet"} <= names and len(listening) >= 6, listening
    assert [x for x in listening if not _loopback(x[1].ip)] == []
    # Every connection of the driver and the nodes goes to 127.0.0.1.
    assert connected and [x for x in connected if not _loopback(x[1].ip)] == []


def _slow(body: dict[str, Any]) -> Reply:
    return {**careful_model(body), "delay": 0.01}


def _campaign(name: str, seeds: str, base_url: str) -> str:
    # 3 model-free targets and one LLM target, 2 tasks x seeds x 2 levels each.
    return with_llm(model_free(name=name, seeds=seeds), base_url=base_url, key_env=KEY_ENV,
                    concurrency=4)


def _nodes_of(store: Path, llm: bool) -> set[str]:
    """Return the Ray node ids recorded as where finished attempts ran (LLM or model-free)."""
    rows = query(store, "SELECT t.worker FROM attempts t JOIN administrations a ON a.id = "
                        "t.administration WHERE t.status = 'finished' AND (a.target = "
                        f"'fake-llm') = {int(llm)}")
    return {r[0].split()[0].removeprefix("node=") for r in rows}


def _files_open_under(procs: list[psutil.Process], root: Path) -> list[str]:
    out = []
    for p in procs:
        try:
            out += [f.path for f in p.open_files() if f.path.startswith(str(root))]
        except psutil.NoSuchProcess:
            continue
    return out


def test_model_free_and_llm_episodes_run_on_both_nodes_and_only_the_driver_writes(
        cluster: Cluster, tmp_path: Path) -> None:
    store = tmp_path / "s"
    opened: list[str] = []
    looked = []

    def look(p: Progress) -> None:
        # Mid-run: no process of the cluster has a file of the store open.
        if p.done >= 8 and not looked:
            looked.append(p.done)
            opened.extend(_files_open_under(_cluster_processes(cluster), store))

    with FakeOpenAI(itertools.repeat(careful_model, 5000)) as srv:
        config = parse_campaign(_campaign("two-nodes", "0-3", srv.base_url))
        with EvidenceStore.open(store, scrub_env=False) as st:
            result = run_campaign(config, st, backend="ray", progress=look,
                                  ray=RayOptions(address=cluster.address, actors=2,
                                                 concurrency=2))
    planned = 4 * 2 * 4 * 2  # targets x tasks x seeds x levels
    assert result.status.complete and result.recorded == planned and result.failed_attempts == 0
    nodes = {n["NodeID"] for n in alive_nodes()}
    assert len(nodes) == 2
    # Each kind of episode ran on both nodes (the attempts name the node, as Ray knows it).
    assert _nodes_of(store, llm=False) == nodes
    assert _nodes_of(store, llm=True) == nodes
    assert looked and opened == []
    counts = ledger_invariants(store)
    assert counts["episodes"] == counts["keys_with_episode"] == planned
    assert counts["billable"] == counts["billable_distinct"] == counts["recorded_requests"]
    check = verify_store(store)
    assert check.qualified, [p.text() for p in check.problems]
