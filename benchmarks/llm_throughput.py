"""LLM steps per second from one process: N concurrent episodes, ours beside Inspect AI.

    python benchmarks/llm_throughput.py [--quick] [--n 1,16,64,256] [--repeat 3] [--no-sdk]

A zero-latency OpenAI-compatible server runs in another process (benchmarks/llm_server.py, a
bare asyncio HTTP/1.1 server that reports its own CPU time): it answers every chat completion
at once with the next `fetch_page` call, and plain text ("done") once it has been shown the
last page. For each concurrency N, in one run and on the same server:
- ours, lean HTTP path: N episodes in flight at a time (ChatPolicy at L0 on T10, the real
  scaffold and environment), then the same request bodies replayed bare through the lean
  transport at the same concurrency: the HTTP round trip alone;
- ours, SDK path: the same episodes through the openai SDK;
- the peer: the same task, tools and model replies through Inspect AI's openai provider with
  max_connections = max_samples = N.
Our CPU figures are measured in `--repeat` rounds (ours, the bare replay and the scripted run
back to back), and the harness CPU beyond the HTTP round trip is the median of the per-round
differences. It is split by measurement, not by subtraction alone: the scaffold and environment
(the same task with the model-free rule policy), the LLM policy + client alone (no HTTP,
environment or event loop: benchmarks/llm_policy_profile.py, with its cProfile top functions,
the profile of the LLM part), and the rest, which exists only in the real run: the episode's
awaits scheduled on the event loop, garbage collection (timed by gc.callbacks), caches shared
with the HTTP stack, and at N = 1 a new connection per episode (the loop's pool closes when its
last episode ends).
Steps are model requests (counted by the server); CPU is this process's (time.process_time);
latency is per model request. Writes benchmarks/results/llm_throughput.json, with the load
average (the machine is shared: compare the ratios measured in the same run, not absolutes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any

from agentmetrology.agents.llm.policy import make_llm_policy
from agentmetrology.agents.llm.target import LLMTarget, Prices
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.envs.registry import get_env
from agentmetrology.records.clock import RealClock
from llm_server import GCMeter, Meter, Server, ServerHandle, canned_replies

COMTRADE = get_env("comtrade")
OUT = Path(__file__).resolve().parent / "results" / "llm_throughput.json"
TASK = "T10_constrained_budget"  # 8 pages, no 429/500: no real-clock backoff waits
LEVEL = "L0"
KEY_ENV = "AGM_BENCH_KEY"
GOAL = {"steps_per_s_at_64": 1000, "ratio_vs_inspect": 5, "harness_cpu_ms_per_step": 0.3}

# -- ours ---------------------------------------------------------------------------------------

async def _episodes(target: LLMTarget, http: str, n: int, episodes: int,
                    bodies: list[bytes] | None = None) -> list[float]:
    """Run `episodes` L0 episodes with at most `n` in flight; return per-request latencies."""
    latencies: list[float] = []
    seeds = iter(range(episodes))

    async def worker() -> None:
        for seed in seeds:
            clock = RealClock()
            policy = make_llm_policy(target, clock=clock, http_client=http)
            if bodies is not None and seed == 0:
                _capture(policy, bodies)
            ep = await run_episode_async(COMTRADE, ComtradeEnv(TASK, seed), policy, LEVEL,
                                         clock=clock)
            await policy.aclose()
            if ep.termination.kind != "submitted":
                raise RuntimeError(f"episode {seed} ended {ep.termination}")
            latencies.extend(a.latency_s for a in ep.usage.attempts)

    await asyncio.gather(*(worker() for _ in range(n)))
    return latencies


def _capture(policy: Any, bodies: list[bytes]) -> None:
    """Keep every request body an episode sends (for the bare replay)."""
    from agentmetrology.agents.llm.lean import encode_body

    reset = policy.reset

    def reset_and_capture(brief: Any) -> None:
        reset(brief)  # a fresh client per episode: wrap that one
        client = policy._client
        original = client.complete

        async def complete(kwargs: dict[str, Any], *, body: bytes | None = None) -> Any:
            bodies.append(encode_body(kwargs) if body is None else body)
            return await original(kwargs, body=body)

        client.complete = complete

    policy.reset = reset_and_capture


def ours(server: ServerHandle, http: str, n: int, episodes: int) -> dict[str, Any]:
    """Return steps/s, CPU/step and latency of our harness at concurrency n."""
    target = LLMTarget("bench", "zero", server.base_url, KEY_ENV, {}, Prices(0.0, 0.0, 0.0),
                       max_retries=0, timeout_s=60.0)
    asyncio.run(_episodes(target, http, min(n, 4), 4))  # warm up: imports, first connections
    with GCMeter() as gc_meter, Meter(server) as m:
        lat = asyncio.run(_episodes(target, http, n, episodes))
    return m.result(lat, episodes=episodes, http_client=http,
                    gc_cpu_ms_per_step=round(gc_meter.cpu_s / max(m.steps, 1) * 1e3, 3))


def bare_replay(server: Server, n: int, requests: int) -> dict[str, Any]:
    """Return the lean transport alone sending one episode's bodies, n at a time."""
    from agentmetrology.agents.llm.lean import LeanTransport, decode_completion, endpoint_url

    bodies: list[bytes] = []
    target = LLMTarget("bench", "zero", server.base_url, KEY_ENV, {}, Prices(0.0, 0.0, 0.0),
                       max_retries=0)
    asyncio.run(_episodes(target, "lean", 1, 1, bodies))

    async def run() -> list[float]:
        transport = LeanTransport(endpoint_url(server.base_url), "k", 60.0, "bench")
        lat: list[float] = []
        todo = iter(range(requests))

        async def worker() -> None:
            for i in todo:
                t0 = time.perf_counter()
                _, _, data = await transport.post(bodies[i % len(bodies)])
                decode_completion(data)
                lat.append(time.perf_counter() - t0)

        await asyncio.gather(*(worker() for _ in range(n)))
        await transport.aclose()
        return lat

    asyncio.run(run())  # warm up
    with Meter(server) as m:
        lat = asyncio.run(run())
    return m.result(lat, what="lean transport alone: encoded bodies posted, replies decoded")


def scripted_per_tool_call(episodes: int = 64) -> dict[str, Any]:
    """Return CPU ms per tool call of the same task and level with the model-free rule policy:
    the scaffold and environment alone (no model, no HTTP), the part of a step that is not the
    LLM policy or its client."""
    from agentmetrology.run.episode import make_policy
    from agentmetrology.runtime.drive import drive

    def run(seeds: range) -> int:
        calls = 0
        for seed in seeds:
            ep = drive(run_episode_async(COMTRADE, ComtradeEnv(TASK, seed),
                                         make_policy(COMTRADE, "rule"), LEVEL))
            calls += ep.usage.tool_calls
        return calls

    run(range(4))
    c0 = time.process_time()
    calls = run(range(episodes))
    return {"cpu_ms_per_tool_call": round((time.process_time() - c0) / calls * 1e3, 3),
            "tool_calls": calls}


# -- driver -------------------------------------------------------------------------------------

def child(server: Server, side: str, n: int, episodes: int) -> dict[str, Any]:
    """Return one side measured in a child process of its own (`--child`): the SDK path and
    the peer, whose imports (openai, Inspect AI) would otherwise stay in this process's heap and
    make its garbage collection costlier than in a user's `agm` run of the lean path."""
    done = subprocess.run([sys.executable, __file__, "--child", side, "--port", str(server.port),
                           "--n", str(n), "--episodes", str(episodes)],
                          capture_output=True, text=True, env=os.environ.copy())
    if done.returncode != 0:
        raise RuntimeError(f"the {side} side failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run_child(args: argparse.Namespace) -> None:
    """Measure one side for the parent (`child`) and print it as the last line of JSON."""
    server = ServerHandle(args.port)
    if args.child == "sdk":
        result = ours(server, "sdk", int(args.n), args.episodes)
    else:
        from llm_peer_inspect import inspect_run

        result = inspect_run(server, int(args.n), args.episodes)
    print(json.dumps(result), flush=True)


def load() -> str:
    """Return the load averages (the machine is shared)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _rounds(server: Server, n: int, episodes: int, repeat: int) -> list[dict[str, Any]]:
    """Return `repeat` rounds of ours, the bare transport and the scripted run, back to back.

    The machine is shared: one round can land on a busy moment, so every CPU figure is
    measured `repeat` times and the difference is taken within each round (paired).
    """
    out = []
    for _ in range(repeat):
        lean = ours(server, "lean", n, episodes)
        bare = bare_replay(server, n, lean["steps"])
        env = scripted_per_tool_call()
        beyond = lean["cpu_ms_per_step"] - bare["cpu_ms_per_step"]
        out.append({"ours_lean": lean, "bare_lean_transport": bare,
                    "scripted_scaffold_and_env": env, "beyond_http": round(beyond, 3),
                    "llm_policy": round(beyond - env["cpu_ms_per_tool_call"], 3),
                    "load": load()})
    return out


def measure(server: Server, n: int, episodes: int, sdk: bool, repeat: int,
            policy_ms: float) -> dict[str, Any]:
    """Return every side at concurrency n, measured back to back (ours `repeat` times);
    `policy_ms` is the LLM policy + client's own CPU per request (policy_alone)."""
    row: dict[str, Any] = {"n": n, "load_before": load()}
    rounds = _rounds(server, n, episodes, repeat)
    # The round of median CPU stands for ours (its latencies and steps/s go with it).
    by_cpu = sorted(rounds, key=lambda r: r["ours_lean"]["cpu_ms_per_step"])
    mid = by_cpu[(len(by_cpu) - 1) // 2]
    row["ours_lean"] = mid["ours_lean"]
    row["bare_lean_transport"] = mid["bare_lean_transport"]
    row["scripted_scaffold_and_env"] = mid["scripted_scaffold_and_env"]
    row["harness_cpu_ms_per_step_beyond_http"] = round(median(r["beyond_http"] for r in rounds), 3)
    row["llm_policy_cpu_ms_per_step_beyond_http_and_env"] = round(
        median(r["llm_policy"] for r in rounds), 3)
    # What neither the scripted run nor the policy alone has: the episode's steps scheduled on
    # the event loop, garbage collection of everything a step allocates, caches shared with
    # the HTTP stack.
    row["rest_cpu_ms_per_step"] = round(
        row["llm_policy_cpu_ms_per_step_beyond_http_and_env"] - policy_ms, 3)
    row["gc_cpu_ms_per_step"] = round(median(r["ours_lean"]["gc_cpu_ms_per_step"]
                                             for r in rounds), 3)
    row["rounds"] = [{"ours_cpu_ms_per_step": r["ours_lean"]["cpu_ms_per_step"],
                      "bare_cpu_ms_per_request": r["bare_lean_transport"]["cpu_ms_per_step"],
                      "scripted_cpu_ms_per_tool_call":
                          r["scripted_scaffold_and_env"]["cpu_ms_per_tool_call"],
                      "beyond_http_ms": r["beyond_http"], "llm_policy_ms": r["llm_policy"],
                      "steps_per_s": r["ours_lean"]["steps_per_s"], "load": r["load"]}
                     for r in rounds]
    if sdk:
        row["ours_sdk"] = child(server, "sdk", n, episodes)
    row["inspect"] = child(server, "inspect", n, episodes)
    if row["inspect"].get("available"):
        row["ratio_lean_vs_inspect"] = round(
            row["ours_lean"]["steps_per_s"] / row["inspect"]["steps_per_s"], 2)
        if sdk:
            row["ratio_sdk_vs_inspect"] = round(
                row["ours_sdk"]["steps_per_s"] / row["inspect"]["steps_per_s"], 2)
    row["load_after"] = load()
    return row


def main() -> None:
    """Measure every N and write the JSON results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N = 1, 16, 64 with fewer episodes")
    ap.add_argument("--n", default=None, help="comma-separated concurrencies (default "
                                              "1,16,64,256)")
    ap.add_argument("--no-sdk", action="store_true", help="skip our SDK path")
    ap.add_argument("--repeat", type=int, default=None,
                    help="rounds of our CPU figures per N, medians reported (default 3, "
                         "--quick 2)")
    ap.add_argument("--child", choices=("sdk", "inspect"), help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--episodes", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ.setdefault(KEY_ENV, "bench-key-not-a-secret")
    if args.child:
        run_child(args)
        return
    # What `agm` has loaded: our process's heap (and so its garbage collection) is a user's.
    import agentmetrology.cli.main  # noqa: F401
    repeat = args.repeat or (2 if args.quick else 3)
    ns = [int(x) for x in (args.n or ("1,16,64" if args.quick else "1,16,64,256")).split(",")]
    from llm_policy_profile import policy_alone

    alone = policy_alone(canned_replies(), 60 if args.quick else 200)
    rows = []
    with Server() as server:
        for n in ns:
            episodes = max(8 if args.quick else 16, (1 if args.quick else 2) * n)
            row = measure(server, n, episodes, not args.no_sdk, repeat,
                          alone["cpu_ms_per_request"])
            rows.append(row)
            print(json.dumps({"n": n, "lean": row["ours_lean"]["steps_per_s"],
                              "sdk": row.get("ours_sdk", {}).get("steps_per_s"),
                              "inspect": row["inspect"].get("steps_per_s"),
                              "cpu_ms": row["ours_lean"]["cpu_ms_per_step"],
                              "beyond_http_ms": row["harness_cpu_ms_per_step_beyond_http"],
                              "load": row["load_after"]}), flush=True)
    at64 = next((r for r in rows if r["n"] == 64), None)
    doc = {"benchmark": "llm_throughput", "python": sys.version.split()[0],
           "machine": platform.machine(), "cpus": os.cpu_count(), "task": TASK, "level": LEVEL,
           "command": "python benchmarks/llm_throughput.py" + (" --quick" if args.quick else ""),
           "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
           "goal": GOAL, "repeat": repeat, "results": rows, "policy_alone": alone,
           "goal_met": None if at64 is None or not at64["inspect"].get("available") else {
               "steps_per_s_at_64": at64["ours_lean"]["steps_per_s"] >= 1000,
               "ratio_vs_inspect_at_64": at64["ratio_lean_vs_inspect"] >= 5,
               "harness_cpu_beyond_http": at64["harness_cpu_ms_per_step_beyond_http"] <= 0.3},
           "notes": ["steps = model requests counted by the server; CPU = this process "
                     "(time.process_time) over the measured run; the server runs in another "
                     "process and reports its own CPU",
                     "ours (lean) runs in this process, which imports what `agm` imports; the "
                     "SDK path and Inspect AI each run in a child process of their own "
                     "(--child), so their libraries do not enlarge this process's heap",
                     "ours: ChatPolicy at L0 through the real scaffold and environment (the "
                     "harness submits at the end); Inspect: the same tools and model replies "
                     "through its openai provider, no scorer, eval log written to a temp dir",
                     "harness_cpu_ms_per_step_beyond_http = ours_lean CPU/step minus the bare "
                     "lean transport's CPU/request on the same bodies at the same concurrency; "
                     "it includes the environment serving each page (scripted_scaffold_and_env: "
                     "the rule policy on the same task, no model) and the LLM policy + client "
                     "(llm_policy_cpu_ms_per_step_beyond_http_and_env)",
                     "latency: ours from each attempt's latency_s; Inspect from its model "
                     "events' working_time",
                     "our CPU figures: `repeat` rounds per N (ours, bare transport, scripted, "
                     "back to back); beyond-HTTP and LLM-policy figures are medians of the "
                     "per-round differences, ours_lean is the round of median CPU; every "
                     "round is under results[].rounds",
                     "policy_alone: the LLM policy + client with no HTTP, environment or event "
                     "loop (benchmarks/llm_policy_profile.py), and its cProfile top functions: "
                     "the profile of the LLM part of a step",
                     "so beyond-HTTP = scripted_scaffold_and_env + policy_alone + "
                     "rest_cpu_ms_per_step: the rest is what a step costs only inside the real "
                     "run (the episode's awaits scheduled on the event loop, garbage "
                     "collection, caches shared with the HTTP stack); gc_cpu_ms_per_step: "
                     "the garbage collector's part of it, timed by gc.callbacks in the "
                     "measured run (the bare replay allocates little and collects rarely)"]}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
