"""Benchmark `agm view` on a store of 50,000 recorded episodes: does the index open in < 1 s?

Builds a synthetic store once (cached under --work): one campaign of 50,000 administrations
(10 targets x 10 tasks x 250 seeds x 2 levels), registered through the store API, attempts
started in bulk, every episode recorded through the ledger API (one transaction each, the
ledger's own checks included) with two assessments; episodes share a handful of blobs, which
the index never reads. Then starts the real server (uvicorn on loopback, as `agm view` does)
and times, over HTTP, the first (cold) and the median of the next requests of: the front page
(every campaign with its status), the episode index (page 1, a deep page, filtered), a campaign
grid and an episode page. The budget is 1 s for the front page and the episode index.
Writes benchmarks/results/viewer.json.
Run: .venv/bin/python benchmarks/viewer.py [--episodes 50000] [--work /tmp/agm-view-bench]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from agentmetrology.records.canonical import canonical_json
from agentmetrology.records.episode import EpisodeKey
from agentmetrology.store import Binding, EvidenceStore
from agentmetrology.store.evidence import AssessmentEvidence, EpisodeEvidence
from agentmetrology.store.ledger import RecordedDigests
from agentmetrology.view.app import create_app
from agentmetrology.view.server import bind
from agentmetrology.view.source import detect_source

OUT = Path(__file__).resolve().parent / "results" / "viewer.json"
CAMPAIGN = "bench"
VERSIONS = {"ground_truth_f1": "1.0.0", "shape_judge": "1.0.0"}
BUDGET_S = 1.0
REPEATS = 5


def _keys(n: int) -> list[EpisodeKey]:
    keys = []
    seeds = max(1, n // 200)
    for t in range(10):
        for task in range(10):
            for level in ("L0", "L2"):
                for s in range(seeds):
                    keys.append(EpisodeKey(CAMPAIGN, f"target-{t}", f"T{task}", s, "clean",
                                           level, 0))
    return keys[:n]


def build(root: Path, n: int) -> dict[str, Any]:
    """Write the synthetic store; return how long each phase took."""
    t0 = time.perf_counter()
    keys = _keys(n)
    binds = [Binding(k, i, "a" * 64, "b" * 64, dict(VERSIONS)) for i, k in enumerate(keys)]
    with EvidenceStore.open(root, scrub_env=False) as st:
        st.register_campaign(CAMPAIGN, "p" * 64, {"name": CAMPAIGN}, binds)
        t1 = time.perf_counter()
        run = st.begin_run(CAMPAIGN, "inline")
        pending = st.pending(CAMPAIGN)
        attempts = st.start_attempts(pending, run, "inline")
        t2 = time.perf_counter()
        episode = st.put_json({"events": [], "note": "synthetic benchmark episode"})
        submission = st.put_json({"data_jsonl": "", "metadata_json": "{}", "run_log": ""})
        for i, (adm, attempt) in enumerate(zip(pending, attempts, strict=True)):
            status, score = [("PASS", 1.0), ("FAIL", 0.0), ("PARTIAL", 0.5),
                             ("UNKNOWN", None)][i % 4]
            bodies = []
            for scorer in VERSIONS:
                body = canonical_json({"scorer": scorer, "status": status, "score": score,
                                       "reasons": [] if score is not None else ["no grade"]})
                bodies.append(AssessmentEvidence(scorer, "1.0.0", status, score, "d" * 64, body))
            ev = EpisodeEvidence(adm.key, b"", None, "submitted" if i % 7 else "infra_error",
                                 "", None if i % 5 == 0 else 0.001, 100, 10, 1, 3, 1,
                                 tuple(bodies))
            st.ledger.record_episode(attempt, ev, RecordedDigests(
                episode, submission, tuple(hashlib.sha256(b.body).hexdigest() for b in bodies)))
        st.end_run(run, "done")
    t3 = time.perf_counter()
    return {"register_s": round(t1 - t0, 3), "start_attempts_s": round(t2 - t1, 3),
            "record_s": round(t3 - t2, 3), "total_s": round(t3 - t0, 3)}


def _get(url: str) -> tuple[float, int, int]:
    t = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as r:
        body = r.read()
        status = r.status
    return time.perf_counter() - t, status, len(body)


def measure(root: Path) -> dict[str, Any]:
    """Serve the store with uvicorn and time each page over HTTP (cold, then median)."""
    import uvicorn

    t0 = time.perf_counter()
    # banner=None: the evidence check `agm view` runs once at start (a whole ledger check on
    # a store never checked here: store_scale.py times that check) is not a page's cost
    try:
        app = create_app(detect_source(root), banner=None)
    except TypeError:  # an older tree (--before): it has no start-up check
        app = create_app(detect_source(root))
    startup = time.perf_counter() - t0
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    base = f"http://127.0.0.1:{port}"
    pages = {
        "front page (campaign status)": "/",
        "episode index, page 1": "/episodes",
        "episode index, page 500": "/episodes?page=500",
        "episode index, filtered (target, level, verdict)":
            "/episodes?target=target-3&level=L2&verdict=UNKNOWN",
        "campaign grid": f"/campaign?name={CAMPAIGN}",
        "episode page": f"/episode?campaign={CAMPAIGN}&target=target-0&task=T0&seed=0"
                        "&condition=clean&level=L0&repeat=0",
    }
    out: dict[str, Any] = {"app_startup_s": round(startup, 4)}
    try:
        for name, path in pages.items():
            cold, status, size = _get(base + path)
            warm = [_get(base + path)[0] for _ in range(REPEATS)]
            out[name] = {"path": path, "status": status, "bytes": size,
                         "cold_s": round(cold, 4), "median_s": round(statistics.median(warm), 4),
                         "max_s": round(max(warm), 4)}
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
    return out


def main() -> None:
    """Build (or reuse) the store, measure, and write the JSON result."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=50_000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/agm-view-bench"))
    args = ap.parse_args()
    root = args.work / f"store-{args.episodes}"
    built: dict[str, Any] | None = None
    if not (root / "ledger.sqlite").exists():
        built = build(root, args.episodes)
    timings = measure(root)
    index = [timings["front page (campaign status)"], timings["episode index, page 1"]]
    doc = {
        "benchmark": "viewer", "episodes": args.episodes,
        "store_bytes": sum(f.stat().st_size for f in root.rglob("*") if f.is_file()),
        "build": built if built is not None else "reused",
        "pages": timings, "budget_s": BUDGET_S,
        "index_opens_within_budget": all(p["cold_s"] < BUDGET_S and p["status"] == 200
                                         for p in index),
        "python": sys.version.split()[0], "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc, indent=2))


if __name__ == "__main__":
    main()
