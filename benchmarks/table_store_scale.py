"""Rows of benchmarks/store_scale.py for benchmarks/table.py: a large store's status and verify."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

CMD = "python benchmarks/store_scale.py"


def _tree(c: dict[str, Any]) -> str:
    """Return what a command that forked held in all its processes together, or ""."""
    if not c.get("tree_kib_per_episode"):
        return ""
    return (f"; its {c['processes']} processes together peak {c['peak_tree_pss_mib']:.1f} MiB "
            f"PSS, sampled, {c['tree_kib_per_episode']:.2f} KiB/episode")


def store_scale(doc: dict[str, Any]) -> Iterator[dict[str, str]]:
    """Yield one row per measured command: wall time, CPU, peak RSS and KiB per episode."""
    load = str(doc.get("uptime", "")).split("load average:")[-1].strip()
    mach = f"{doc['machine']}, {doc['cpus']} cpus, py {doc['python']}"
    for c in doc["cases"]:
        goal = ""
        if "goal_s" in c:  # wall time on a shared machine; the CPU time says what load hid
            cpu = ("; its CPU time within" if c["cpu_s"] < c["goal_s"] else
                   f"; CPU {c['cpu_s'] / c['goal_s']:.1f}x")
            goal = f"< {c['goal_s']} s (" + ("met" if c["goal_met"] else
                                             f"missed by {c['missed_by']} wall{cpu}"
                                             + (f": {c['why']}" if c.get("why") else "")) + ")"
        runs = (f"; runs {', '.join(f'{w:.2f}' for w in c['runs_wall_s'])} s"
                if c.get("runs_wall_s") else "")
        yield {"benchmark": "store_scale",
               "measure": f"`{re.sub(r'/[^ ]*/(scale|store)-[0-9]+', 'STORE', c['command'])}`: "
                          f"{c['case']}, {doc['episodes']:,}-episode store "
                          f"(wall s; CPU {c['cpu_s']:.2f} s{runs}; peak RSS "
                          f"{c['peak_rss_mib']:.1f} MiB, {c['kib_per_episode']:.2f} KiB/episode "
                          f"beyond `agm --version` {doc['baseline_rss_mib']:.1f} MiB"
                          f"{_tree(c)})",
               "ours": f"{c['wall_s']:.2f}", "peer": "—", "ratio": "—", "goal": goal,
               "machine": f"{mach}, load {c.get('load') or load}", "command": f"`{CMD}`"}
    disk = doc.get("disk")
    if disk:  # blobs written zlib-compressed since issue 40 (an older store's stay as they were)
        total = disk["ledger_mib"] + disk["blobs_mib"]
        yield {"benchmark": "store_scale",
               "measure": f"store on disk, {doc['episodes']:,}-episode store (MiB: ledger and "
                          f"its log {disk['ledger_mib']:,.1f}, blobs {disk['blobs_mib']:,.1f} "
                          f"in {disk['blob_files']:,} files, "
                          f"{disk.get('compressed_share_of_sample', 0):.0%} of a sample "
                          "compressed; "
                          f"{total * 1024 / doc['episodes']:.1f} KiB/episode)",
               "ours": f"{total:,.1f}", "peer": "—", "ratio": "—", "goal": "",
               "machine": mach, "command": f"`{CMD}`"}
    for e in doc.get("exports", []):
        met = e["rows_per_s"] >= e["goal_rows_per_s"]
        yield {"benchmark": "store_scale",
               "measure": f"`agm export STORE --out F.jsonl`, {e['rows']:,} rows (rows/s of the "
                          f"whole command; wall {e['wall_s']:.2f} s, CPU {e['cpu_s']:.2f} s, "
                          f"{e['rows_per_cpu_s']:,} rows per CPU s; peak RSS "
                          f"{e['peak_rss_mib']:.1f} MiB, {e['kib_per_episode']:.2f} KiB/episode "
                          f"beyond `agm --version` {e['baseline_rss_mib']:.1f} MiB)",
               "ours": f"{e['rows_per_s']:,}", "peer": "—", "ratio": "—",
               "goal": f"≥ {e['goal_rows_per_s']:,} rows/s, KiB/episode not growing (" +
                       ("met" if met else
                        f"missed by {e['goal_rows_per_s'] / e['rows_per_s']:.1f}x") + ")",
               "machine": f"{mach}, load {e.get('load') or load}", "command": f"`{CMD}`"}


def check_split(doc: dict[str, Any]) -> Iterator[dict[str, str]]:
    """Yield one row per command of benchmarks/check_split.py: two processes beside one."""
    mach = f"{doc['machine']}, {doc['cpus']} cpus, py {doc['python']}"
    by = {(c["command"], c["way"].split(" (")[0]): c for c in doc["cases"]}
    for cmd in dict.fromkeys(c["command"] for c in doc["cases"]):
        two, one = by[(cmd, "two processes")], by[(cmd, "one process")]
        yield {"benchmark": "check_split",
               "measure": f"`{cmd}`, {doc['episodes']:,}-episode store, "
                          f"{doc['chain_entries']:,} chain entries (wall s, run of median "
                          f"wall of {doc['rounds']}, the ways taking turns; two processes: "
                          f"runs {', '.join(f'{w:.1f}' for w in two['runs_wall_s'])} s, CPU "
                          f"{two['cpu_s']:.1f} s, largest process {two['peak_rss_mib']:.1f} "
                          f"MiB, all together {two['peak_tree_pss_mib']:.1f} MiB PSS; one "
                          f"process: runs {', '.join(f'{w:.1f}' for w in one['runs_wall_s'])} "
                          f"s, CPU {one['cpu_s']:.1f} s, {one['peak_rss_mib']:.1f} MiB)",
               "ours": f"{two['wall_s']:.2f}", "peer": f"one process {one['wall_s']:.2f}",
               "ratio": f"{one['wall_s'] / two['wall_s']:.2f}x", "goal": "",
               "machine": f"{mach}, load {two['load']}",
               "command": "`python benchmarks/check_split.py --store S`"}
