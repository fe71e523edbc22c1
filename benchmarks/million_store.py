"""Build the largest store of issue 40 goal 1: campaigns of about 100,000 episodes appended.

Each campaign is benchmarks/memory_stores.py's plan (5 targets, 3 tasks, L0 and L2, clean and
stress, repeats, with its measurement failures, ungraded episodes, billable requests and
unrecorded attempts) over seeds of its own, so no two campaigns share an episode: every
episode is really run or cloned from a run, recorded through the store's API with its own
blob and chain entries. Campaigns the log says were built are skipped; a stopped one resumes
where it stopped.
With --encoders N (default 1), N processes encode episodes while the writer records them.
The build stops, between chunks of 2,000 administrations, when the disk holding the store has
less than --min-free GiB free or the --until time (UTC, HH:MM) has passed; the log says so.
Writes a progress line per campaign to --log (JSON lines) and prints it.
Run: .venv/bin/python benchmarks/million_store.py --root /tmp/agm-scale/store-1000000
     [--campaigns 10] [--per-campaign 102000] [--until 22:15] [--min-free 6]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import time
from pathlib import Path

from memory_stores import build_store, seeds_for


def _done(log: Path) -> set[str]:
    """Return the campaigns the log says were built to the end (a stopped one is resumed:
    its administrations not yet recorded are run, as `campaign run` resumes)."""
    if not log.exists():
        return set()
    lines = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines() if x]
    return {x["campaign"] for x in lines if not x["stopped"]}


def _deadline(until: str | None, now: dt.datetime | None = None) -> dt.datetime | None:
    """Return the next UTC time at HH:MM after `now` (tomorrow's when today's has gone by), so a
    build started at 23:30 with --until 01:40 runs past midnight."""
    if until is None:
        return None
    now = now or dt.datetime.now(dt.UTC)
    hh, mm = (int(x) for x in until.split(":"))
    at = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
    return at if at > now else at + dt.timedelta(days=1)


def main() -> None:
    """Append campaigns until --campaigns are in the store, the disk is short or time is up."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--campaigns", type=int, default=10)
    ap.add_argument("--per-campaign", type=int, default=102_000)
    ap.add_argument("--until", default=None, help="UTC HH:MM after which no chunk starts")
    ap.add_argument("--min-free", type=float, default=6.0, help="GiB the disk must keep free")
    ap.add_argument("--log", type=Path, default=None)
    ap.add_argument("--encoders", type=int, default=1,
                    help="processes encoding episodes while this one records them")
    args = ap.parse_args()
    args.root.parent.mkdir(parents=True, exist_ok=True)
    log = args.log or args.root.with_suffix(".build.jsonl")
    why: list[str] = []
    deadline = _deadline(args.until)

    def keep_going() -> bool:
        free = shutil.disk_usage(args.root.parent).free / 2**30
        if free < args.min_free:
            why.append(f"disk: {free:.1f} GiB free < {args.min_free} GiB")
        elif deadline is not None and dt.datetime.now(dt.UTC) >= deadline:
            why.append(f"time: past {args.until} UTC")
        return not why

    seeds = seeds_for(args.per_campaign)
    done = _done(log)
    for k in range(args.campaigns):
        name = f"scale-{k:02d}"
        if name in done:
            continue
        if not keep_going():
            print(f"stopped before {name}: {why[0]}", flush=True)
            break
        t0 = time.perf_counter()
        built = build_store(args.root, args.per_campaign, name=name, first_seed=k * seeds,
                            keep_going=keep_going, encoders=args.encoders)
        line = {"campaign": name, "first_seed": k * seeds, **built,
                "wall_s": round(time.perf_counter() - t0, 1),
                "free_gib": round(shutil.disk_usage(args.root.parent).free / 2**30, 2),
                "at": dt.datetime.now(dt.UTC).strftime("%H:%M:%S"), "stopped_why": why[:1]}
        print(json.dumps(line), flush=True)
        with log.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
        if why:
            break


if __name__ == "__main__":
    main()
