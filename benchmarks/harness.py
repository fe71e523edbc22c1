"""Harness overhead per step, campaign throughput, and Inspect AI on the same workload.

1. Per-step overhead: an LLM episode (the real ChatPolicy and openai client) against a
   zero-latency OpenAI-compatible server on loopback; the server's own handling time is
   measured and subtracted. Also through `run_campaign` (scoring + evidence store included).
2. Scripted episodes per second through `agm campaign run --backend process` (a subprocess,
   every episode scored and recorded in a fresh evidence store).
3. The peer: Inspect AI with its mock model (`mockllm/model`) on the same workload: the same
   ComtradeBench task and seeds, the same tool sequence (task info, every page, one submission),
   the same two scorers, the same number of samples.
Writes benchmarks/results/harness.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from contextvars import ContextVar
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv, is_totals_row
from agentmetrology.envs.comtrade.scoring.submission import submission_from_mapping
from agentmetrology.envs.registry import get_env
from agentmetrology.records.clock import RealClock
from agentmetrology.run.episode import make_policy
from agentmetrology.scoring.episode import score_submission

COMTRADE = get_env("comtrade")

OUT = Path(__file__).resolve().parent / "results" / "harness.json"
TASK = "T3_duplicates"  # 3 pages of 10 rows, injected duplicates: a trivial tool-use task
STEP_TASK = "T10_constrained_budget"  # 8 pages, no 429/500 (no real-clock backoff waits)
KEY_ENV = "AGM_BENCH_KEY"


class ZeroLatencyModel:
    """An OpenAI-compatible server on 127.0.0.1 that answers at once: fetch the next page."""

    def __init__(self) -> None:
        self.server_s = 0.0
        self.requests = 0
        self.bodies: list[dict[str, Any]] = []  # every request, for the SDK-only replay
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                       daemon=True)

    @property
    def base_url(self) -> str:
        """Return the /v1 base URL."""
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def _reply(self, body: dict[str, Any]) -> bytes:
        page = 1 + sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
        call = {"id": f"call_{page}", "type": "function",
                "function": {"name": "fetch_page", "arguments": json.dumps({"page": page})}}
        return json.dumps({
            "id": "bench", "object": "chat.completion", "created": 0, "model": "zero",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"role": "assistant", "content": None,
                                     "tool_calls": [call]}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
        }).encode()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                t0 = time.perf_counter()
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                data = model._reply(body)
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                with model._lock:
                    model.server_s += time.perf_counter() - t0
                    model.requests += 1
                    model.bodies.append(body)

        return Handler

    def __enter__(self) -> ZeroLatencyModel:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _llm_episodes(target: Any, make_policy: Any, seeds: range) -> tuple[float, int]:
    """Run L0 episodes one after another; return (seconds, model requests)."""

    async def run() -> tuple[float, int]:
        t0, requests = time.perf_counter(), 0
        for seed in seeds:
            clock = RealClock()
            policy = make_policy(target, clock)
            ep = await run_episode_async(COMTRADE, ComtradeEnv(STEP_TASK, seed), policy, "L0",
                                         clock=clock)
            await policy.aclose()
            assert ep.termination.kind == "submitted", ep.termination
            requests += len(ep.usage.attempts)
        return time.perf_counter() - t0, requests

    return asyncio.run(run())


def per_step(episodes: int) -> dict[str, Any]:
    """Return per-step timings of an LLM episode against a zero-latency loopback model."""
    try:
        from agentmetrology.agents.llm.policy import make_llm_policy
        from agentmetrology.agents.llm.target import LLMTarget, Prices
    except ImportError as exc:
        return {"available": False, "note": f"LLM policy not importable ({exc})",
                **scripted_per_step(episodes)}
    os.environ.setdefault(KEY_ENV, "bench-key-not-a-secret")

    def make(target: Any, clock: Any) -> Any:
        return make_llm_policy(target, clock=clock)

    with ZeroLatencyModel() as model:
        target = LLMTarget("bench", "zero", model.base_url, KEY_ENV, {}, Prices(0.0, 0.0, 0.0),
                           max_retries=0, timeout_s=30.0)
        _llm_episodes(target, make, range(2))  # warm up: imports, connection pool
        model.server_s, model.requests, model.bodies = 0.0, 0, []
        seconds, requests = _llm_episodes(target, make, range(episodes))
        server_ms = model.server_s / max(model.requests, 1) * 1e3
        sdk_ms = _sdk_replay(model.base_url, list(model.bodies))
        campaign = _campaign_per_step(model.base_url, episodes)
    step_ms = seconds / requests * 1e3
    return {"available": True, "task": STEP_TASK, "level": "L0", "episodes": episodes,
            "model_requests": requests, "per_step_ms": round(step_ms, 3),
            "server_ms_per_request": round(server_ms, 3),
            "harness_overhead_ms_per_step": round(step_ms - server_ms, 3),
            "openai_sdk_replay_ms_per_request": sdk_ms,
            "overhead_beyond_sdk_ms_per_step": round(step_ms - sdk_ms, 3),
            "campaign_per_step_ms": campaign,
            **scripted_per_step(episodes)}


def _campaign_text(name: str, task: str, seeds: int, level: str,
                   target: dict[str, str]) -> str:
    """Return a one-target campaign file over seeds 0..seeds-1 (values are TOML literals)."""
    lines = ["[campaign]", f'name = "{name}"', f'tasks = ["{task}"]', f'seeds = "0-{seeds - 1}"',
             f'levels = ["{level}"]', "concurrency = 1", "[[targets]]",
             *(f"{k} = {v}" for k, v in target.items())]
    return "\n".join(lines) + "\n"


def _sdk_replay(base_url: str, bodies: list[dict[str, Any]]) -> float:
    """Return ms per request of the same requests sent by the bare openai SDK (one client)."""
    from openai import AsyncOpenAI

    async def run() -> float:
        client = AsyncOpenAI(base_url=base_url, api_key=os.environ[KEY_ENV], max_retries=0)
        await client.chat.completions.create(**bodies[0])  # connect once, like the policy
        t0 = time.perf_counter()
        for body in bodies:
            await client.chat.completions.create(**body)
        elapsed = time.perf_counter() - t0
        await client.close()
        return elapsed

    return round(asyncio.run(run()) / max(len(bodies), 1) * 1e3, 3)


def _campaign_per_step(base_url: str, episodes: int) -> float:
    """Return ms per model request through run_campaign (scoring and store included)."""
    from agentmetrology.run.campaign import parse_campaign, run_campaign
    from agentmetrology.store import EvidenceStore

    text = _campaign_text("bench-llm", STEP_TASK, episodes, "L0", {
        "name": '"zero"', "kind": '"llm"', "model": '"zero"', "base_url": f'"{base_url}"',
        "api_key_env": f'"{KEY_ENV}"', "max_retries": "0",
        "price": "{ input_per_m = 0.0, output_per_m = 0.0, cached_per_m = 0.0 }"})
    with tempfile.TemporaryDirectory() as tmp, EvidenceStore.open(tmp) as st:
        result = run_campaign(parse_campaign(text), st)
        requests = st.ledger.conn.execute("SELECT SUM(model_attempts) FROM episodes").fetchone()
    return round(result.elapsed_s / max(int(requests[0] or 0), 1) * 1e3, 3)


def scripted_per_step(episodes: int) -> dict[str, Any]:
    """Return ms per tool call of the same task with a scripted policy (no model at all)."""
    from agentmetrology.runtime.drive import drive

    t0, calls = time.perf_counter(), 0
    for seed in range(episodes):
        ep = drive(run_episode_async(COMTRADE, ComtradeEnv(STEP_TASK, seed),
                                     make_policy(COMTRADE, "rule"), "L0"))
        calls += ep.usage.tool_calls
    return {"scripted_per_tool_call_ms": round((time.perf_counter() - t0) / calls * 1e3, 3)}


def campaign_throughput(samples: int, backend: str, workers: int) -> dict[str, Any]:
    """Return scripted episodes per second through `agm campaign run` in a subprocess."""
    text = _campaign_text("bench", TASK, samples, "L2", {
        "name": '"careful"', "kind": '"scripted"', "agent": '"scripted:careful"'})
    tmp = Path(tempfile.mkdtemp(prefix="agm-bench-"))
    try:
        (tmp / "bench.toml").write_text(text)
        cmd = [*_agm_campaign(), "run", str(tmp / "bench.toml"), "--store", str(tmp / "store"),
               "--backend", backend, "--workers", str(workers), "--quiet"]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"campaign run failed: {proc.stderr[-2000:]}")
        m = re.search(r"in ([0-9.]+) s with", proc.stdout)
        run_s = float(m.group(1)) if m else wall
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"backend": backend, "workers": workers, "episodes": samples, "task": TASK,
            "agent": "scripted:careful", "level": "L2", "command": " ".join(cmd[:4]),
            "wall_s": round(wall, 3), "run_s": round(run_s, 3),
            "episodes_per_s_run": round(samples / run_s, 1),
            "episodes_per_s_wall": round(samples / wall, 1)}


def _agm_campaign() -> list[str]:
    """Return `agm campaign` when the lead has registered it, else the module entry point."""
    agm = Path(sys.executable).with_name("agm")
    if agm.exists() and subprocess.run([str(agm), "campaign", "--help"],
                                       capture_output=True).returncode == 0:
        return [str(agm), "campaign"]
    return [sys.executable, "-m", "agentmetrology.cli.campaign_cmd"]


# -- the peer: Inspect AI with its mock model on the same workload ----------------------------

_ENV: ContextVar[ComtradeEnv] = ContextVar("comtrade_env")


def _mock_turn(messages: list[Any]) -> tuple[str, dict[str, Any]] | None:
    """Return the mock model's next tool call (the careful walk), or None when it is done."""
    results = [json.loads(m.text) for m in messages if getattr(m, "role", "") == "tool"]
    if not results:
        return "get_task_info", {}
    last = results[-1]
    if last.get("status") == "accepted":
        return None
    pages = [r for r in results if "rows" in r]
    if pages and not pages[-1].get("has_more"):
        seen: dict[str, dict[str, Any]] = {}
        for r in (row for p in pages for row in p["rows"]):
            if not is_totals_row(r):
                seen.setdefault(r["record_id"], r)
        data = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in seen.values())
        meta = {"task_id": TASK, "row_count": len(seen), "dedup_key": ["record_id"]}
        return "submit_results", {"data_jsonl": data, "metadata_json": json.dumps(meta),
                                  "run_log": f"task_id={TASK}\ncomplete=true\n"}
    return "fetch_page", {"page": len(pages) + 1}


def _inspect_tools() -> list[Any]:
    """Return the three ComtradeBench tools as Inspect tools over the sample's environment."""
    from inspect_ai.tool import tool

    def call(name: str, **kwargs: Any) -> str:
        return json.dumps(_ENV.get().tools[name](**kwargs))

    @tool
    def get_task_info() -> Any:
        async def execute() -> str:
            """Return the task: id, description, query, constraints and budget."""
            return call("get_task_info")
        return execute

    @tool
    def fetch_page() -> Any:
        async def execute(page: int) -> str:
            """Fetch one page of records (1-indexed).

            Args:
                page: The page number.
            """
            return call("fetch_page", page=page)
        return execute

    @tool
    def submit_results() -> Any:
        async def execute(data_jsonl: str, metadata_json: str, run_log: str = "") -> str:
            """Submit the cleaned records once.

            Args:
                data_jsonl: One JSON object per line.
                metadata_json: A JSON object.
                run_log: Free text.
            """
            return call("submit_results", data_jsonl=data_jsonl, metadata_json=metadata_json,
                        run_log=run_log)
        return execute

    return [get_task_info(), fetch_page(), submit_results()]


def _inspect_task(samples: int) -> Any:
    """Return the Inspect task: one sample per seed, the tool loop, both scorers."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import Score, mean, scorer
    from inspect_ai.solver import solver

    @solver
    def extraction() -> Any:
        async def solve(state: Any, generate: Any) -> Any:
            env = ComtradeEnv(TASK, state.metadata["seed"])
            _ENV.set(env)  # tool calls run inside this sample's context
            state.tools = _inspect_tools()
            state = await generate(state)
            state.metadata["submission"] = env.submission.as_dict() if env.submission else None
            return state
        return solve

    @scorer(metrics=[mean()])
    def both_scorers() -> Any:
        async def score(state: Any, target: Any) -> Score:
            sub = submission_from_mapping(state.metadata["submission"])
            gt, judge = score_submission(COMTRADE, sub, TASK, state.metadata["seed"], "seeded")
            return Score(value=gt.score or 0.0, metadata={"judge": judge.score})
        return score

    return Task(dataset=[Sample(input="Extract the records.", id=i, metadata={"seed": i})
                         for i in range(samples)],
                solver=extraction(), scorer=both_scorers())


def _mock_output(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> Any:
    """The mock model's reply: the careful walk's next tool call, with a usage block."""
    from inspect_ai.model import ModelOutput, ModelUsage

    turn = _mock_turn(messages)
    if turn is None:
        out = ModelOutput.from_content("mockllm/model", "done")
    else:
        out = ModelOutput.for_tool_call("mockllm/model", turn[0], turn[1])
    # Usage given, as a provider gives it: otherwise the mock counts tokens with tiktoken,
    # which downloads its encoding (not possible offline, and not harness work).
    out.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
    return out


def inspect_throughput(samples: int) -> dict[str, Any]:
    """Return Inspect AI's samples per second on the equivalent workload, or why not."""
    try:
        import inspect_ai
        from inspect_ai import eval as inspect_eval
    except ImportError as exc:
        return {"available": False, "reason": f"inspect-ai not importable ({exc})"}
    task = _inspect_task(samples)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        logs = inspect_eval(task, model="mockllm/model",
                            model_args={"custom_outputs": _mock_output}, log_dir=tmp,
                            display="none")
        elapsed = time.perf_counter() - t0
    log = logs[0]
    value = log.results.scores[0].metrics["mean"].value if log.results else None
    return {"available": True, "version": inspect_ai.__version__, "status": log.status,
            "samples": samples, "mean_f1": value, "elapsed_s": round(elapsed, 3),
            "samples_per_s": round(samples / elapsed, 1)}


def main() -> None:
    """Measure and write the JSON results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=300, help="episodes / samples per system")
    ap.add_argument("--step-episodes", type=int, default=20)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    steps = per_step(args.step_episodes)
    print(f"per step: {json.dumps(steps)}", flush=True)
    ours = campaign_throughput(args.samples, "process", args.workers)
    print(f"agm campaign run: {json.dumps(ours)}", flush=True)
    peer = inspect_throughput(args.samples)
    print(f"inspect: {json.dumps(peer)}", flush=True)
    ratio = None
    if peer.get("available"):
        ratio = {"run": round(ours["episodes_per_s_run"] / peer["samples_per_s"], 1),
                 "wall": round(ours["episodes_per_s_wall"] / peer["samples_per_s"], 1)}
    doc = {"benchmark": "harness", "python": sys.version.split()[0],
           "machine": platform.machine(), "cpus": os.cpu_count(),
           "per_step": steps, "campaign": ours, "inspect": peer,
           "ratio_vs_inspect": ratio, "target_ratio": 10,
           "notes": ["ratio.run compares in-process elapsed times (campaign run vs "
                     "inspect eval()); ratio.wall counts our interpreter start too",
                     "both sides: same task, seeds, tool sequence, scorers and sample count; "
                     "ours records every episode into a fresh evidence store, Inspect writes "
                     "its eval log; Inspect runs with its defaults (display none)",
                     "per_step: openai_sdk_replay is the bare SDK sending the same requests to "
                     "the same server with one client; overhead_beyond_sdk is the LLM policy "
                     "(a new SDK client per episode, message building) plus scaffold and "
                     "environment; scripted_per_tool_call is scaffold + environment alone"]}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
