"""A model-free campaign on a Ray cluster of 1 node, then 2 nodes, then 1 again, on this machine.

    python benchmarks/ray_nodes.py [--seeds 50]

The cluster is `ray start --head` (1 CPU) on loopback (agentmetrology.run.campaign.ray_loopback),
this process its driver; a second node (`ray start --address`, 1 CPU) joins for the middle
measurement and is killed after it. Each measurement runs the same campaign (T3_duplicates and
T4_rate_limit_429, rule + two scripted targets, L0 and L2: 12 x seeds episodes) into a fresh
evidence store with `--backend ray` and records every episode, as `agm campaign run` does; the
inline backend runs it once too, for scale. The 1-node run after the 2-node one shows how much
the machine's load moved meanwhile. Episodes per node are read from the store (each attempt
names the node it ran on). The machine has 2 cores shared with other work: a second node adds
a Ray worker process, not a core. Writes benchmarks/results/ray_nodes.json with the load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import shutil
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import ray

from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.run.campaign.ray_cluster import RayOptions, connect
from agentmetrology.run.campaign.ray_loopback import LoopbackNode, free_port, reload_auth
from agentmetrology.store import EvidenceStore

OUT = Path(__file__).resolve().parent / "results" / "ray_nodes.json"

CAMPAIGN = """
[campaign]
name = "bench-nodes-{tag}"
tasks = ["T3_duplicates", "T4_rate_limit_429"]
seeds = "0-{last}"
levels = ["L0", "L2"]

[limits]
max_steps = 30

[[targets]]
name = "rule"
kind = "rule"

[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"

[[targets]]
name = "keeps_totals"
kind = "scripted"
agent = "scripted:keeps_totals"
"""


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def one(root: Path, tag: str, seeds: int, backend: str,
        address: str | None) -> dict[str, Any]:
    """Run the campaign into a fresh store; return its wall time, rate and episodes per node."""
    config = parse_campaign(CAMPAIGN.format(tag=tag, last=seeds - 1))
    store = root / tag
    load = _load()
    with EvidenceStore.open(store, scrub_env=False) as st:
        t0 = time.perf_counter()
        result = run_campaign(config, st, backend=backend,
                              ray=RayOptions(address=address) if address else None)
        wall = time.perf_counter() - t0
    assert result.status.complete and result.failed_attempts == 0, result
    with sqlite3.connect(f"file:{store / 'ledger.sqlite'}?mode=ro", uri=True) as db:
        per_node = dict(db.execute(
            "SELECT substr(worker, 1, instr(worker || ' ', ' ') - 1), COUNT(*) FROM attempts "
            "GROUP BY 1 ORDER BY 2 DESC").fetchall())
    shutil.rmtree(store)
    return {"backend": backend, "episodes": result.recorded, "wall_s": round(wall, 3),
            "episodes_per_s": round(result.recorded / wall, 1),
            "nodes": len(per_node) if backend == "ray" else 0,
            "episodes_per_node": sorted(per_node.values(), reverse=True),
            "load_before": load}


def _wait_nodes(n: int, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        alive = [x for x in ray.nodes() if x["Alive"] and x["Resources"].get("CPU", 0) > 0]
        if len(alive) == n:
            return
        time.sleep(0.2)
    raise RuntimeError(f"the cluster did not reach {n} live node(s) in {timeout_s} s")


def main() -> None:
    """Measure 1 node, 2 nodes, 1 node again (and inline once) and write the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=50)
    args = ap.parse_args()
    temp = Path("/tmp") / f"agm-bn-{os.getpid()}"  # short: Ray's socket paths are limited
    # Token authentication on, one token for the nodes and this driver.
    os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(16))
    reload_auth()
    env = {**os.environ, "RAY_health_check_period_ms": "500",
           "RAY_health_check_failure_threshold": "2"}
    env.pop("RAY_ADDRESS", None)
    port = free_port()
    address = f"127.0.0.1:{port}"
    nodes: list[LoopbackNode] = []
    runs: list[dict[str, Any]] = []
    root = Path(tempfile.mkdtemp(prefix="agm-bench-nodes-"))
    uptime_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    try:
        t0 = time.perf_counter()
        nodes.append(LoopbackNode.head(port, 1, env, temp))
        nodes[0].wait_listening(port)
        connect(RayOptions(address=address))
        _wait_nodes(1)
        start_s = time.perf_counter() - t0
        one(root, "warm", 2, "ray", address)  # Ray's first task on a node starts its worker
        runs.append(one(root, "inline", args.seeds, "inline", None))
        runs.append(one(root, "one-node", args.seeds, "ray", address))
        nodes.append(LoopbackNode.worker(address, 1, env, temp))
        _wait_nodes(2)
        one(root, "warm-2", 2, "ray", address)
        runs.append(one(root, "two-nodes", args.seeds, "ray", address))
        nodes.pop().kill()
        _wait_nodes(1)
        runs.append(one(root, "one-node-again", args.seeds, "ray", address))
    finally:
        ray.shutdown()
        for node in nodes:
            node.kill()
        shutil.rmtree(temp, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)
    one_node = (runs[1]["episodes_per_s"] + runs[3]["episodes_per_s"]) / 2
    doc = {"benchmark": "ray_nodes", "python": platform.python_version(),
           "ray": ray.__version__, "machine": platform.machine(), "cpus": os.cpu_count(),
           "episodes": runs[0]["episodes"], "cluster_start_s": round(start_s, 2),
           "command": "python benchmarks/ray_nodes.py",
           "uptime_before": uptime_before,
           "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
           "runs": runs,
           "two_over_one_node": round(runs[2]["episodes_per_s"] / one_node, 2)}
    OUT.write_text(json.dumps(doc, indent=2) + "\n")
    for r in runs:
        print(json.dumps({k: r[k] for k in ("backend", "nodes", "episodes_per_s",
                                             "episodes_per_node", "load_before")}))
    print(json.dumps({"two_over_one_node": doc["two_over_one_node"]}))


if __name__ == "__main__":
    main()
