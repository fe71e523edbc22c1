"""What keeping an LLM episode's whole conversation costs in the store, per episode.

Runs ChatPolicy episodes (through the real scaffold and environment) against the zero-latency
model of benchmarks/llm_server.py, encodes each exactly as a campaign records it
(`EpisodeEvidence.from_records`: redacted canonical bytes, one blob per distinct message), and
counts, per episode: the episode blob's bytes, the transcript document's bytes, the bytes of the
message blobs this episode adds to a store that already holds the earlier episodes (content
addressing: a system prompt or tool list shared by every episode is stored once), and, for
comparison, what storing every request's messages whole would have cost (the quadratic way).
Writes benchmarks/results/transcript_bytes.json.
Run: .venv/bin/python benchmarks/transcript_bytes.py [--episodes 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
from pathlib import Path
from typing import Any

from agentmetrology.agents.llm import ChatPolicy
from agentmetrology.agents.llm.target import LLMTarget, Prices
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.envs.registry import get_env
from agentmetrology.records.canonical import canonical_json, sha256_hex
from agentmetrology.records.clock import FakeClock
from agentmetrology.store.evidence import EpisodeEvidence
from llm_server import Server

COMTRADE = get_env("comtrade")
OUT = Path(__file__).resolve().parent / "results" / "transcript_bytes.json"
KEY_ENV = "AGM_BENCH_TRANSCRIPT_KEY"
CASES = (("T10_constrained_budget", "L0"), ("T2_multi_page", "L2"), ("T3_duplicates", "L2"))


async def _episodes(base_url: str, task: str, level: str, n: int) -> list[Any]:
    target = LLMTarget("bench", "zero", base_url, KEY_ENV, {}, Prices(0.0, 0.0, 0.0), 0, 30.0)
    out = []
    for seed in range(n):
        policy = ChatPolicy(target, clock=FakeClock(), http_client="lean")
        out.append(await run_episode_async(COMTRADE, ComtradeEnv(task, seed), policy, level))
        await policy.aclose()
    return out


def measure(episodes: list[Any]) -> dict[str, Any]:
    """Return the per-episode byte counts of `episodes` recorded into one store, in order."""
    stored: set[str] = set()
    rows = []
    for ep in episodes:
        ev = EpisodeEvidence.from_records(ep)
        assert ev.transcript is not None
        new = 0
        for part in ev.transcript.parts:
            d = sha256_hex(part)
            if d not in stored:
                stored.add(d)
                new += len(part)
        t = ep.transcript
        whole = sum(len(canonical_json([t.messages[i] for i in x.messages]))
                    for x in t.exchanges)
        rows.append({"requests": len(t.exchanges), "episode": len(ev.body),
                     "document": len(ev.transcript.document), "new_blobs": new,
                     "whole_requests": whole})
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    med["transcript"] = med["document"] + med["new_blobs"]
    first = rows[0]["document"] + rows[0]["new_blobs"]
    return {"episodes": len(rows), "median": med, "first_episode_transcript": first}


def main() -> None:
    """Run the cases and write the JSON result."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=20)
    args = ap.parse_args()
    os.environ.setdefault(KEY_ENV, "bench-key")
    cases = []
    with Server() as server:
        for task, level in CASES:
            eps = asyncio.run(_episodes(server.base_url, task, level, args.episodes))
            cases.append({"task": task, "level": level, **measure(eps)})
    doc = {"benchmark": "transcript_bytes", "cases": cases, "machine": platform.machine(),
           "python": platform.python_version()}
    OUT.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(doc, indent=2))


if __name__ == "__main__":
    main()
