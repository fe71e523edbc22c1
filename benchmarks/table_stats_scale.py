"""The README rows of benchmarks/stats_scale.py (read by benchmarks/table.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def _cpu(side: dict[str, Any]) -> str:
    """Return a side's CPU seconds, or at least how many when its sign test was stopped."""
    if side["cpu_s"] is not None:
        return f"{side['cpu_s']:,.2f}"
    return f"> {side['cpu_s_at_least']:,.0f} (sign test stopped)"


def stats_scale(doc: dict[str, Any]) -> Iterator[dict[str, str]]:
    """Rows of benchmarks/stats_scale.py: compare and summarize statistics at large n."""
    load = str(doc["uptime"]).split("load average:")[-1].strip()
    mach = f"{doc.get('machine', '?')}, {doc.get('cpus', '?')} cpus, py {doc.get('python')}, " \
           f"load {load}"
    base = doc["base"][:7]
    for c in doc["cases"]:
        before, after = c["before"], c["after"]
        if c["kind"] == "compare":
            what = (f"`agm stats compare` statistics, {c['n']:,} pairs (CPU s: compare_paired "
                    f"{after['compare_paired_cpu_s']:,.2f} + exact sign test "
                    f"{after['sign_test']['cpu_s']:,.3f}; before: "
                    f"{before['compare_paired_cpu_s']:,.2f} + ")
            sign = before["sign_test"]
            what += (f"{sign['cpu_s']:,.2f}" if sign["cpu_s"] is not None else
                     f"> {sign['stopped_after_cpu_s']:,.0f}, stopped")
        else:
            what = (f"`agm stats summarize` statistics, {c['n']:,} values in 2 groups (CPU s: "
                    f"reliability_table, 2000 resamples a group")
        what += (f"; peak RSS {after['peak_rss_mib']:,.0f} MiB, before "
                 f"{before['peak_rss_mib']:,.0f}; same numbers: "
                 f"{'yes' if c['same_numbers'] else 'NO'})")
        at_least = before["cpu_s"] is None
        ratio = before["cpu_s_at_least" if at_least else "cpu_s"] / after["cpu_s"]
        yield {"benchmark": "stats_scale", "measure": what, "ours": _cpu(after),
               "peer": f"{base} {_cpu(before)}",
               "ratio": f"{'> ' if at_least else ''}{ratio:,.1f}x less", "goal": "",
               "machine": mach, "command": "`python benchmarks/stats_scale.py`"}


def table_read(doc: dict[str, Any]) -> Iterator[dict[str, str]]:
    """Row of benchmarks/table_read.py: reading and grouping a large results table."""
    load = str(doc["uptime"]).split("load average:")[-1].strip()
    mach = f"{doc.get('machine', '?')}, {doc.get('cpus', '?')} cpus, py {doc.get('python')}, " \
           f"load {load}"
    before, after = doc["before"], doc["after"]
    what = (f"reading a {doc['rows']:,}-row JSON Lines results table ({doc['file_mib']:,.1f} "
            f"MiB) and grouping it, as `agm stats` does before its statistics (CPU s: read "
            f"{after['read_cpu_s']:,.2f} + group {after['group_cpu_s']:,.2f}; before "
            f"{before['read_cpu_s']:,.2f} + {before['group_cpu_s']:,.2f}; peak RSS "
            f"{after['peak_rss_mib']:,.0f} MiB, before {before['peak_rss_mib']:,.0f}; same "
            f"values: {'yes' if doc['same_values'] else 'NO'})")
    yield {"benchmark": "table_read", "measure": what, "ours": f"{after['cpu_s']:,.2f}",
           "peer": f"{doc['base'][:7]} {before['cpu_s']:,.2f}",
           "ratio": f"{before['cpu_s'] / after['cpu_s']:,.1f}x less", "goal": "",
           "machine": mach, "command": "`python benchmarks/table_read.py`"}
