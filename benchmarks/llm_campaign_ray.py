"""An LLM campaign on Ray actors beside the same campaign inline, N episodes in flight.

    python benchmarks/llm_campaign_ray.py [--quick] [--n 16,64] [--actors 2]

The zero-latency OpenAI-compatible server of benchmarks/llm_throughput.py runs in another
process. For each N, one campaign (T10 at L0, one llm target on that server, 4N episodes, at
least 32) runs into a fresh evidence store twice, back to back: with the inline backend
(`concurrency = N`, every episode in the driver) and with the ray backend (N episodes in flight
over `--actors` actors, N / actors each, the driver recording what they stream). Both record
every episode, score and billable request in the ledger: this is `agm campaign run`, not a bare
client loop. Ray is started once, before the first measurement (its start is reported apart).
Steps are model requests (counted by the server); driver CPU is this process's
(time.process_time); the actors' CPU is not in it. Writes
benchmarks/results/llm_campaign_ray.json with the load average (the machine is shared: compare
the ratio measured in the same run).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import ray

from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.run.campaign.ray_cluster import RayOptions, connect
from agentmetrology.store import EvidenceStore
from llm_server import Meter, Server
from llm_throughput import KEY_ENV, LEVEL, TASK, load

OUT = Path(__file__).resolve().parent / "results" / "llm_campaign_ray.json"

CAMPAIGN = """
[campaign]
name = "bench-ray"
tasks = ["{task}"]
seeds = "0-{last}"
levels = ["{level}"]
concurrency = {n}

[limits]
max_steps = 30

[[targets]]
name = "zero"
kind = "llm"
model = "zero"
base_url = "{base_url}"
api_key_env = "{key_env}"
max_retries = 0
price = {{ input_per_m = 1.0, output_per_m = 2.0 }}
"""


def one(server: Server, n: int, episodes: int, backend: str, actors: int) -> dict[str, Any]:
    """Run the campaign once into a fresh store; return what was measured."""
    config = parse_campaign(CAMPAIGN.format(task=TASK, last=episodes - 1, level=LEVEL, n=n,
                                            base_url=server.base_url, key_env=KEY_ENV))
    options = RayOptions(actors=actors, concurrency=max(1, n // actors))
    with tempfile.TemporaryDirectory() as tmp, \
            EvidenceStore.open(Path(tmp) / "s", scrub_env=False) as st, Meter(server) as m:
        result = run_campaign(config, st, backend=backend, ray=options)
    assert result.status.complete and result.recorded == episodes, result
    return m.result([], episodes=episodes,
                    episodes_per_s=round(episodes / m.wall, 1),
                    failed_attempts=result.failed_attempts)


def main() -> None:
    """Measure every N on both backends and write the JSON results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N = 16 only, fewer episodes")
    ap.add_argument("--n", default=None, help="comma-separated concurrencies (default 16,64)")
    ap.add_argument("--actors", type=int, default=2, help="Ray actors (default 2)")
    args = ap.parse_args()
    ns = [int(x) for x in (args.n or ("16" if args.quick else "16,64")).split(",")]
    os.environ.setdefault(KEY_ENV, "bench-key-not-a-secret")  # before Ray: workers inherit it
    t0 = time.perf_counter()
    connect(RayOptions(address="local"))  # the local instance `agm campaign run` starts
    ray_start_s = round(time.perf_counter() - t0, 2)
    rows = []
    try:
        with Server() as server:
            one(server, 4, 4, "ray", args.actors)  # warm up: worker imports, first actors
            for n in ns:
                episodes = max(16 if args.quick else 32, (2 if args.quick else 4) * n)
                row: dict[str, Any] = {"n": n, "episodes": episodes, "load_before": load()}
                row["inline"] = one(server, n, episodes, "inline", args.actors)
                row["ray"] = one(server, n, episodes, "ray", args.actors)
                row["ratio_ray_vs_inline"] = round(row["ray"]["steps_per_s"]
                                                   / row["inline"]["steps_per_s"], 2)
                row["load_after"] = load()
                rows.append(row)
                print(json.dumps({"n": n, "inline": row["inline"]["steps_per_s"],
                                  "ray": row["ray"]["steps_per_s"],
                                  "ratio": row["ratio_ray_vs_inline"],
                                  "load": row["load_after"]}), flush=True)
    finally:
        ray.shutdown()
    doc = {"benchmark": "llm_campaign_ray", "python": sys.version.split()[0],
           "ray": ray.__version__, "machine": platform.machine(), "cpus": os.cpu_count(),
           "task": TASK, "level": LEVEL, "actors": args.actors, "ray_start_s": ray_start_s,
           "command": "python benchmarks/llm_campaign_ray.py" + (" --quick" if args.quick
                                                                 else ""),
           "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
           "results": rows,
           "notes": ["steps = model requests counted by the server; both backends run the "
                     "whole campaign (plan, ledger, every episode scored and recorded, every "
                     "request billed), into a fresh store each",
                     "driver CPU per step = this process only: on ray the actors' CPU is "
                     "spent in other processes and is not counted",
                     "ray: N episodes in flight over `actors` actors (N / actors each); the "
                     "driver is the store's only writer",
                     "Ray's own start (ray_start_s) is not in either measurement; starting the "
                     "campaign's actors (worker processes importing agentmetrology) is in the "
                     "ray one, as in every `agm campaign run --backend ray`",
                     "each answered request travels actor -> driver and the episode's next "
                     "step waits for it (backpressure 1): one extra process hop per step, "
                     "which on a loaded 2-core machine costs scheduling latency"]}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
