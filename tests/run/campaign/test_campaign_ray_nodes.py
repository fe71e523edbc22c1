"""Campaigns on a Ray cluster of separate nodes on one machine: every address on loopback,
episodes on every node (each attempt names the node it ran on), the driver the store's only
writer, a worker node lost mid-campaign costs no episode and no billed request twice, and
`agm campaign run --ray-address` from a fresh process reaches the cluster on loopback."""

from __future__ import annotations

import ipaddress
import itertools
import subprocess
from pathlib import Path
from typing import Any

import psutil
import ray

from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.run.campaign.execute import Progress
from agentmetrology.run.campaign.ray_cluster import RayOptions
from agentmetrology.store import EvidenceStore
from agentmetrology.store.verify import verify_store
from run.campaign.campaign_fixtures import model_free, query, with_llm, write
from run.campaign.ray_fixtures import KEY_ENV, ledger_invariants
from run.campaign.ray_nodes import Cluster, alive_nodes, cluster
from support.agm_runs import AGM
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
    # An LLM episode then lasts about a second: a node killed once it recorded one still has
    # episodes running.
    return {**careful_model(body), "delay": 0.05}


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


LOST = ("SELECT COUNT(*) FROM attempts WHERE status = 'failed' AND (detail LIKE "
        "'%Ray actor running this episode died%' OR detail LIKE '%Ray worker running this "
        "batch was lost%')")


def test_a_worker_node_lost_mid_campaign_loses_no_episode_and_bills_nothing_twice(
        cluster: Cluster, tmp_path: Path) -> None:
    # A third node, killed (every process of it, SIGKILL) once episodes of both kinds were
    # recorded from it: the machine it stands for is gone.
    doomed, doomed_id = cluster.add_worker('{"doomed": 1}')
    store = tmp_path / "s"
    killed: list[int] = []

    def kill_once_it_ran_llm(p: Progress) -> None:
        # Its LLM actor (one per node) runs 2 episodes at once, back to back: once one of
        # them is recorded, the next ones are running.
        if killed:
            return
        ran = query(store, "SELECT COUNT(*) FROM attempts t JOIN administrations a ON a.id = "
                           f"t.administration WHERE t.worker LIKE 'node={doomed_id} %' AND "
                           "a.target = 'fake-llm'")
        if ran[0][0] >= 1:
            doomed.kill()
            killed.append(p.done)

    with FakeOpenAI(itertools.repeat(_slow, 20000)) as srv:
        config = parse_campaign(_campaign("lost-node", "0-5", srv.base_url))
        options = RayOptions(address=cluster.address, actors=3, concurrency=2)
        with EvidenceStore.open(store, scrub_env=False) as st:
            first = run_campaign(config, st, backend="ray", progress=kill_once_it_ran_llm,
                                 ray=options)
        planned = 4 * 2 * 6 * 2  # targets x tasks x seeds x levels
        assert killed and killed[0] < planned
        lost = query(store, LOST)[0][0]
        # What ran on the lost node when it died failed (the batches and the LLM episodes
        # there), nothing else; the run went on on the other nodes.
        assert lost >= 1 and first.failed_attempts == lost
        assert first.recorded == planned - lost and first.stop_reason is None
        mid = ledger_invariants(store)
        assert mid["started"] == 0 and mid["billable"] == mid["billable_distinct"]
        llm_lost = query(store, LOST.replace("WHERE", "WHERE detail LIKE '%actor%' AND"))[0][0]
        # Its actor had an episode running (two at a time, back to back); at most one request
        # per LLM episode running there was answered and not recorded.
        assert llm_lost >= 1 and len(srv.requests) - mid["billable"] <= llm_lost
        # The same command runs what the node took with it, each once, on the nodes left.
        with EvidenceStore.open(store, scrub_env=False) as st:
            resumed = run_campaign(config, st, backend="ray", ray=options)
    assert resumed.status.complete and resumed.recorded == lost and resumed.duplicates == 0
    after = ledger_invariants(store)
    assert after["episodes"] == after["keys_with_episode"] == planned and after["started"] == 0
    assert after["billable"] == after["billable_distinct"]
    assert after["billable"] - after["recorded_requests"] == mid["billable"] \
        - mid["recorded_requests"]
    # The resumed episodes ran on the nodes left; those recorded before the loss keep its id.
    resumed_on = {r[0].split()[0] for r in query(
        store, "SELECT worker FROM attempts WHERE run = (SELECT MAX(id) FROM runs)")}
    assert len(resumed_on) >= 1 and f"node={doomed_id}" not in resumed_on
    assert f"node={doomed_id}" in {r[0].split()[0] for r in query(
        store, "SELECT worker FROM attempts WHERE status = 'finished'")}
    check = verify_store(store)
    assert check.qualified, [p.text() for p in check.problems]


def test_agm_campaign_run_with_ray_address_uses_the_cluster_s_nodes(
        cluster: Cluster, tmp_path: Path) -> None:
    # A fresh driver process: `--ray-address 127.0.0.1:PORT` must stay on loopback (Ray would
    # rewrite it to the interface address, where nothing listens) and present the token.
    file = write(tmp_path, model_free(name="cli-nodes", tasks='["T3_duplicates"]', seeds="0-3"))
    store = tmp_path / "s"
    res = subprocess.run([*AGM, "campaign", "run", str(file), "--store", str(store), "--quiet",
                          "--backend", "ray", "--ray-address", cluster.address],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    nodes = {n["NodeID"] for n in alive_nodes()}
    assert _nodes_of(store, llm=False) == nodes and len(nodes) == 2
    assert query(store, "SELECT COUNT(*) FROM episodes") == [(3 * 4 * 2,)]
