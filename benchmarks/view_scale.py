"""Every viewer page on a large store: server time per page type, cold and warm (issue 40).

Issue 40 goal 1 asks that every page of `agm view STORE` answer in under 1 s on a large store.
The store comes from benchmarks/memory_stores.py (a real campaign plan: 5 targets, 3 tasks, 2
levels, 2 conditions, repeats; real episodes cloned, with measurement failures, ungraded
episodes, billable and unrecorded attempts, administrations not launched), cached under --work
at the size given (the JSON says the size measured, never more).

Each page type is timed in a child process of its own (imports done before the clock starts,
as in a server that is already up): a new app (`view.app.create_app`, the one `agm view`
serves) answers the page once (cold: the app's caches empty, and any import the page makes
lazily is paid here as a first visitor would) and then --repeat more times (warm: the median
and the maximum). Requests go through starlette's TestClient in process, so the times are the
server's alone (no socket, no browser). Each child gets an empty memo folder (AGM_VERIFY_CACHE),
so cold means nothing kept; one more row times the campaign page of a viewer started again on
the unchanged store, whose first visit the overview kept by the earlier run answers. The
workbench page is served with its token cookie.
With --before SRC each page is also timed, right after, on an older source tree (kept as
`before`: what a change gained under about the same load).
Writes benchmarks/results/view_scale.json (or --out).
Run: .venv/bin/python benchmarks/view_scale.py [--episodes 30000] [--work /tmp/agm-view-scale]
     [--repeat 5] [--before OLD_SRC --before-label REV]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "view_scale.json"
GOAL_S = 1.0
# Where a page's first visit spends its time, said in the result when the page misses the goal.
WHY = {"campaign grid": "the first visit walks the campaign: per administration its episode "
                        "and assessments (the grid's progress and scores, "
                        "store/campaign_overview.py); kept in memory and across restarts after",
       "front page (every campaign's totals)":
           "the first visit sums every administration with its episode, grouped by campaign, "
           "in one pass over the ledger (store/reader_queries.py SUMMARY: it grows with the "
           "store); kept in memory and across restarts after (store/overview_memo.py)"}
KEY = ("campaign", "target", "task", "seed", "condition", "level", "repeat")


def _key_of(row: dict[str, Any]) -> str:
    return urlencode({k: row[k] for k in KEY})


def pages(root: Path) -> dict[str, str]:
    """Return each page type's path on this store (keys looked up read-only)."""
    from agentmetrology.store.reader import StoreReader
    from agentmetrology.store.reader_queries import EpisodeFilter

    reader = StoreReader(root)
    campaign = reader.summaries()[0]["campaign"]
    recorded, total = reader.episodes(EpisodeFilter(status="recorded"), 1, 0)
    llm, _ = reader.episodes(EpisodeFilter(status="recorded", target="llm-priced"), 1, 0)
    pending, _ = reader.episodes(EpisodeFilter(status="pending"), 1, 0)
    _, all_rows = reader.episodes(EpisodeFilter(), 1, 0)
    last = max(1, -(-all_rows // 50))
    out = {
        "front page (every campaign's totals)": "/",
        "campaign grid": "/campaign?" + urlencode({"name": campaign}),
        "episode index, page 1": "/episodes",
        "episode index, last page": f"/episodes?page={last}",
        "episode index, 500 a page": "/episodes?per=500",
        "episode index, target+level+verdict filter":
            "/episodes?target=careful&level=L2&verdict=UNKNOWN",
        "episode index, status=pending": "/episodes?status=pending",
        "episode index, status=measurement_failure": "/episodes?status=measurement_failure",
        "episode index, seed filter": "/episodes?seed=3",
        "episode page (recorded, model-free)": "/episode?" + _key_of(recorded[0]),
        "episode page (recorded, LLM target, billing)": "/episode?" + _key_of(llm[0]),
        "episode page, actor filter": "/episode?" + _key_of(recorded[0]) + "&actor=agent",
        "episode page (never recorded)": "/episode?" + _key_of(pending[0]),
        "re-grade page": "/regrade?" + _key_of(recorded[0]),
        "workbench": "/workbench",
        "not found (404)": "/no-such-page",
    }
    del total
    return out


def child(root: Path, path: str, repeat: int) -> dict[str, Any]:
    """Serve `path` from a new app: the first answer (cold) and `repeat` more (warm)."""
    from starlette.testclient import TestClient

    from agentmetrology.view.app import create_app
    from agentmetrology.view.source import detect_source
    from agentmetrology.view.workbench_auth import COOKIE, WorkbenchAuth

    auth = WorkbenchAuth()
    # banner=None: the evidence check `agm view` runs once at start (a whole ledger check on
    # a store never checked here: store_scale.py times that check) is not a page's cost
    try:
        app = create_app(detect_source(root), workbench=auth, banner=None)
    except TypeError:  # an older tree (--before): it has no start-up check
        app = create_app(detect_source(root), workbench=auth)
    client = TestClient(app, base_url="http://127.0.0.1")
    client.cookies.set(COOKIE, auth.token)
    t = time.perf_counter()
    first = client.get(path)
    cold = time.perf_counter() - t
    warm = []
    for _ in range(repeat):
        t = time.perf_counter()
        r = client.get(path)
        warm.append(time.perf_counter() - t)
        assert r.status_code == first.status_code
    return {"path": path, "status": first.status_code, "bytes": len(first.content),
            "cold_s": round(cold, 4), "warm_median_s": round(statistics.median(warm), 4),
            "warm_max_s": round(max(warm), 4),
            "under_goal": cold < GOAL_S and statistics.median(warm) < GOAL_S}


def _child(root: Path, name: str, path: str, repeat: int, src: Path | None,
           cache: Path | None = None) -> dict[str, Any]:
    # Cold means nothing kept: each page gets an empty memo folder unless `cache` is given.
    folder = cache or Path(tempfile.mkdtemp(prefix="agm-vs-"))
    env = dict(os.environ, AGM_VERIFY_CACHE=str(folder))
    if src is not None:  # an older source tree, measured the same way
        env["PYTHONPATH"] = str(src)
    proc = subprocess.run([sys.executable, __file__, "--child", str(root), path,
                           "--repeat", str(repeat)], capture_output=True, text=True,
                          check=False, env=env)
    if cache is None:
        shutil.rmtree(folder, ignore_errors=True)
    if proc.returncode != 0:
        raise SystemExit(f"{name}: {proc.stderr[-800:]}")
    return dict(json.loads(proc.stdout))


def _measure(root: Path, name: str, path: str, repeat: int,
             before: Path | None) -> dict[str, Any]:
    load = os.getloadavg()[0]
    out = {"page": name, **_child(root, name, path, repeat, None), "load_before": round(load, 2)}
    if before is not None:  # right after, so both see about the same load
        old = _child(root, name, path, repeat, before)
        out["before"] = {k: old[k] for k in ("status", "bytes", "cold_s", "warm_median_s")}
    print(f"{name}: cold {out['cold_s']} s, warm {out['warm_median_s']} s "
          f"(HTTP {out['status']}, {out['bytes']} bytes)"
          + (f"; before: cold {out['before']['cold_s']} s, warm "
             f"{out['before']['warm_median_s']} s" if before else ""), flush=True)
    return out


def _restarted(root: Path, page: str, path: str, repeat: int) -> dict[str, Any]:
    """Time a page of a viewer started again on the unchanged store: what an earlier run kept
    (store.overview_memo: a campaign's overview, the front page's totals) answers its first
    visit."""
    name = f"{page}, viewer restarted on the unchanged store"
    cache = Path(tempfile.mkdtemp(prefix="agm-vs-"))
    _child(root, name, path, 1, None, cache)  # the earlier run, which keeps the overview
    load = os.getloadavg()[0]
    out = {"page": name, **_child(root, name, path, repeat, None, cache),
           "load_before": round(load, 2)}
    shutil.rmtree(cache, ignore_errors=True)
    print(f"{name}: cold {out['cold_s']} s, warm {out['warm_median_s']} s", flush=True)
    return out


def main() -> None:
    """Build (or reuse) the store, time every page type, and write the JSON result."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=30_000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/agm-view-scale"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--before", type=Path, help="also time each page with this older src/ "
                    "(run right after, page by page), kept as `before`")
    ap.add_argument("--before-label", default="", help="what --before is (a commit)")
    ap.add_argument("--child", nargs=2, metavar=("STORE", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child[0]), args.child[1], args.repeat)))
        return
    sys.path.insert(0, str(HERE))
    from memory_stores import build_store

    root = args.work / f"store-{args.episodes}"
    built: dict[str, Any] | str = "reused"
    if not (root / "ledger.sqlite").exists():
        t = time.perf_counter()
        built = {**build_store(root, args.episodes), "build_s": round(time.perf_counter() - t, 1)}
    from agentmetrology.store.reader import StoreReader

    os.environ["AGM_VERIFY_CACHE"] = ""  # this process keeps nothing; each child its own
    summary = StoreReader(root).summaries()
    rows = [_measure(root, name, path, args.repeat, args.before)
            for name, path in pages(root).items()]
    front = "front page (every campaign's totals)"
    rows.insert(1, _restarted(root, front, pages(root)[front], args.repeat))
    rows.insert(3, _restarted(root, "campaign grid", pages(root)["campaign grid"], args.repeat))
    slow = [r["page"] for r in rows if not r["under_goal"]]
    for r in rows:
        if not r["under_goal"] and r["page"] in WHY:
            r["why"] = WHY[r["page"]]
    doc = {
        "benchmark": "view_scale", "goal_s": GOAL_S, "repeat": args.repeat,
        "administrations": sum(s["planned"] for s in summary),
        "recorded": sum(s["done"] for s in summary), "build": built,
        "store_mib": round(sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
                           / 2**20, 1),
        "pages": rows, "pages_over_goal": slow, "before": args.before_label or None,
        "machine": platform.machine(), "cpus": os.cpu_count(),
        "python": sys.version.split()[0], "loadavg_end": [round(x, 2) for x in os.getloadavg()],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"{len(rows)} pages, over {GOAL_S} s: {slow or 'none'}")


if __name__ == "__main__":
    main()
