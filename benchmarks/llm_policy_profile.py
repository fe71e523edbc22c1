"""The LLM policy and its client alone: CPU per model request, and where it goes (cProfile).

    python benchmarks/llm_policy_profile.py [--episodes 200]

The same conversations as benchmarks/llm_throughput.py (ChatPolicy at L0 on T10, the server's
reply bytes), with everything else taken away: the page observations are computed beforehand,
the HTTP post is answered in-process with the server's replies in order, and the policy is
driven without an event loop. What is left is the policy and client's own work per request:
building the tool message, the request body, recording the billable attempt, decoding the
completion, reading its tool calls, redaction and the per-episode setup and notes.
llm_throughput.py calls `policy_alone()` for its results; run alone, this prints the same
figures.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import time
from collections.abc import Mapping
from typing import Any

from agentmetrology.agents.llm.policy import ChatPolicy, make_llm_policy
from agentmetrology.agents.llm.target import LLMTarget, Prices
from agentmetrology.agents.scaffolds.runner import brief_for
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.envs.registry import get_env
from agentmetrology.records.clock import FakeClock
from agentmetrology.records.policy import Stop
from agentmetrology.runtime.drive import drive

TASK, LEVEL, PAGES = "T10_constrained_budget", "L0", 8
KEY_ENV = "AGM_BENCH_KEY"


class CannedTransport:
    """Stands in for LeanTransport: answers the requests of one episode, in order, at once."""

    headers: Mapping[str, str] = {"content-type": "application/json", "x-request-id": "bench"}

    def __init__(self, replies: list[bytes]) -> None:
        self.replies = iter(replies)

    async def post(self, body: bytes) -> tuple[int, Mapping[str, str], bytes]:
        """Return the next reply."""
        return 200, self.headers, next(self.replies)

    async def aclose(self) -> None:
        """Nothing to close."""


def _episode(target: LLMTarget, brief: Any, pages: dict[int, Any],
             transport: CannedTransport) -> int:
    """Run one conversation; return the number of model requests it made."""
    policy: ChatPolicy = make_llm_policy(target, clock=FakeClock(), http_client="lean")
    policy.reset(brief)
    policy._client._lean = transport  # type: ignore[assignment]  # the post, answered here
    obs, requests = None, 0
    while True:
        move = drive(policy.act(obs))
        requests += len(policy.take_attempts())
        if isinstance(move, Stop):
            break
        obs = pages[move.args["page"]]
    policy.notes()
    drive(policy.aclose())
    return requests


def policy_alone(replies: list[bytes], episodes: int = 200, rounds: int = 5,
                 top: int = 8) -> dict[str, Any]:
    """Return the policy + client CPU per request (best of `rounds`) and its top functions."""
    os.environ.setdefault(KEY_ENV, "bench-key-not-a-secret")
    target = LLMTarget("bench", "zero", "http://127.0.0.1:9/v1", KEY_ENV, {},
                       Prices(0.0, 0.0, 0.0), max_retries=0, timeout_s=60.0)
    env = ComtradeEnv(TASK, 0)
    brief = brief_for(get_env("comtrade"), env, LEVEL, 50, FakeClock())
    pages = {p: env.tools["fetch_page"](page=p) for p in range(1, PAGES + 1)}

    def run(n: int) -> tuple[float, int]:
        c0 = time.process_time()
        requests = sum(_episode(target, brief, pages, CannedTransport(replies))
                       for _ in range(n))
        return (time.process_time() - c0) / requests, requests

    run(20)  # warm up
    per_request = min(run(episodes)[0] for _ in range(rounds))
    # CPU time, not wall time: on a shared machine a preemption would land on any function.
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    run(episodes)
    profile.disable()
    return {"cpu_ms_per_request": round(per_request * 1e3, 4), "episodes": episodes,
            "requests_per_episode": run(1)[1], "profile_top": _top(profile, top),
            "what": "ChatPolicy + ChatClient at L0 on T10, observations precomputed, the post "
                    "answered in-process, no event loop; best of the rounds; profile_top: "
                    "share of the profiled run's own CPU time (cProfile tottime, process time) per "
                    "function; the profiler's per-call cost inflates many-call functions"}


def _top(profile: cProfile.Profile, n: int) -> list[dict[str, Any]]:
    """Return the n functions with the most own time, with their share of the whole."""
    stats: dict[Any, Any] = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    total = sum(v[2] for v in stats.values()) or 1.0
    rows = sorted(((v[2], key) for key, v in stats.items()), reverse=True)[:n]
    return [{"function": _name(key), "share": round(tt / total, 3)} for tt, key in rows]


def _name(key: tuple[str, int, str]) -> str:
    path, _, func = key
    if path == "~":
        return func  # a builtin, e.g. <method 'encode' of 'msgspec.json.Encoder' objects>
    short = path.split("/site-packages/")[-1].split("/src/")[-1]
    if "/lib/python" in short:
        short = "stdlib " + short.split("/lib/python")[-1].split("/", 1)[-1]
    return f"{short}:{func}"


def main() -> None:
    """Print the policy-alone figures (the canned replies of llm_throughput.py)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=200)
    args = ap.parse_args()
    from llm_server import canned_replies

    print(json.dumps(policy_alone(canned_replies(PAGES), args.episodes), indent=2))


if __name__ == "__main__":
    main()
