"""Rows of benchmarks/export_audit_scale.py for benchmarks/table.py: export and archive audit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CMD = "`python benchmarks/export_audit_scale.py`"
MEMORY = Path(__file__).resolve().parent / "results" / "memory.json"


def _mach(doc: dict[str, Any], case: dict[str, Any]) -> str:
    return (f"{doc['machine']}, {doc['cpus']} cpus, py {doc['python']}, "
            f"load {case.get('load') or '?'}")


def _earlier_audit() -> dict[str, Any] | None:
    """Return the largest `archive audit --format agm` case benchmarks/memory.py measured."""
    try:
        cases = json.loads(MEMORY.read_text(encoding="utf-8"))["cases"]
    except (OSError, ValueError, KeyError):
        return None
    audits = [c for c in cases if c.get("case") == "archive audit --format agm"]
    return max(audits, key=lambda c: c["episodes"]) if audits else None


def _exports(doc: dict[str, Any]) -> Iterator[dict[str, str]]:
    rev = doc.get("before_revision") or "the older tree"
    for e in doc["exports"]:
        t, b = e["this"], e.get("before")
        met = t["rows_per_s"] >= e["goal_rows_per_s"]
        same = ("bytes identical to before" if e.get("bytes_identical") else
                "same table and schema as before (row groups differ)"
                if e.get("parquet_table_identical") else "NOT identical to before"
                if b else "")
        yield {"benchmark": "export_audit_scale",
               "measure": f"`agm export STORE --out F.{e['format']}`, {t['rows']:,} rows "
                          f"(rows/s of the whole command; wall {t['wall_s']:.2f} s, CPU "
                          f"{t['cpu_s']:.2f} s, {t['rows_per_cpu_s']:,} rows per CPU s; peak "
                          f"RSS {t['peak_rss_mib']:.1f} MiB, {t['kib_per_row']:.2f} KiB/row "
                          f"beyond `agm --version`; {same})",
               "ours": f"{t['rows_per_s']:,}",
               "peer": (f"before ({rev}) {b['rows_per_s']:,} rows/s, CPU {b['cpu_s']:.2f} s, "
                        f"{b['peak_rss_mib']:.1f} MiB" if b else "—"),
               "ratio": f"{t['rows_per_s'] / b['rows_per_s']:.2f}x" if b else "—",
               "goal": f"≥ {e['goal_rows_per_s']:,} rows/s, KiB/row not growing (" +
                       ("met" if met else
                        f"missed by {e['goal_rows_per_s'] / t['rows_per_s']:.1f}x wall; per "
                        "CPU second " + ("met" if t["rows_per_cpu_s"] >= e["goal_rows_per_s"]
                                         else "missed by "
                                         f"{e['goal_rows_per_s'] / t['rows_per_cpu_s']:.1f}x")
                        ) + ")",
               "machine": _mach(doc, t), "command": CMD}


def _audits(doc: dict[str, Any]) -> Iterator[dict[str, str]]:
    rev = doc.get("before_revision") or "the older tree"
    earlier = _earlier_audit()
    for a in doc["audits"]:
        t, b = a["this"], a.get("before")
        if b is not None:
            peer = (f"before ({rev}) {b['ms_per_episode']:.2f} ms/episode ({b['wall_s']:.1f} s "
                    f"wall, {b['cpu_s']:.1f} s CPU, {b['peak_rss_mib']:.1f} MiB)")
            x, how = a["x_wall"], f"CPU {a['x_cpu']:.1f}x"
        elif earlier is not None and _comparable(earlier["episodes"], t["episodes"]):
            ms = earlier["wall_s"] * 1000 / earlier["episodes"]
            peer = (f"earlier {ms:.2f} ms/episode at {earlier['episodes']:,} episodes "
                    f"(benchmarks/memory.py, {earlier['wall_s']:.1f} s wall, "
                    f"{earlier['cpu_s']:.1f} s CPU)")
            x = round(ms / t["ms_per_episode"], 2)
            cpu_ms = earlier["cpu_s"] * 1000 / earlier["episodes"]
            how = (f"CPU {cpu_ms / t['cpu_ms_per_episode']:.1f}x; against another run's "
                   "figure, not the older tree in this run")
        else:  # the 10x verdict is the rows beside the older tree's, at their sizes
            peer, x, how = "—", None, ""
        same = ("; reports byte-identical to before" if a.get("reports_identical") else
                "; reports NOT identical" + (f" ({doc['reports_note']})"
                                             if doc.get("reports_note") else "")
                if b is not None else "")
        goal = f"≥ {a['goal_x']:.0f}x the earlier rate per episode" + (
            " (no older tree measured at this size: the rows beside one judge the goal)"
            if x is None else f" ({'met' if x >= a['goal_x'] else 'not met'}: {x:.1f}x "
                              f"wall, {how})")
        yield {"benchmark": "export_audit_scale",
               "measure": f"`agm archive audit S --format agm --out D`, {t['episodes']:,} "
                          f"planned episodes (ms per episode, wall; {t['wall_s']:.1f} s wall, "
                          f"{t['cpu_s']:.1f} s CPU; peak RSS {t['peak_rss_mib']:.1f} MiB, "
                          f"{t['kib_per_episode']:.2f} KiB/episode{_together(t)}{same})",
               "ours": f"{t['ms_per_episode']:.2f}", "peer": peer,
               "ratio": "—" if x is None else f"{x:.1f}x", "goal": goal,
               "machine": _mach(doc, t), "command": CMD}


def _comparable(earlier: int, now: int) -> bool:
    """Return whether another run's audit of `earlier` episodes is a fair peer for one of
    `now`: within 2x in size (a rate per episode taken at 50,400 episodes says nothing of one
    at a million, where the store no longer sits in the page cache)."""
    return earlier <= 2 * now and now <= 2 * earlier


def _together(t: dict[str, Any]) -> str:
    """Return what an audit that forked held in all its processes together, or ""."""
    if t.get("processes", 1) <= 1 or not t.get("peak_tree_pss_mib"):
        return ""
    return (f"; its {t['processes']} processes together peak {t['peak_tree_pss_mib']:.1f} "
            "MiB PSS, sampled")


def _steps(doc: dict[str, Any]) -> Iterator[dict[str, str]]:
    for key, tree in (("where_time_goes", "this tree"), ("where_time_goes_before", None)):
        w = doc.get(key)
        if w:
            yield from _steps_of(doc, w, tree or f"the tree at {w.get('revision') or '?'}, "
                                                 "in the same run")


def _steps_of(doc: dict[str, Any], w: dict[str, Any], tree: str) -> Iterator[dict[str, str]]:
    load = str(w.get("uptime", "")).split("load average:")[-1].strip()
    mach = f"{doc['machine']}, {doc['cpus']} cpus, py {doc['python']}, load {load}"
    for what, part, n in (("`agm export` as JSON Lines", "export", "rows_of_store"),
                          ("`agm archive audit --format agm`", "audit", "planned_of_store")):
        if part not in w:
            continue  # a run measured only the export's (or only the audit's) steps
        steps = w[part]["cpu_s"]
        parts = "; ".join(f"{k} {v:.2f}" for k, v in steps.items())
        runs = f", least of {w['runs']} runs" if w.get("runs", 1) > 1 else ""
        yield {"benchmark": "export_audit_scale",
               "measure": f"where the CPU goes: {what}, the store built for {w[part][n]:,} "
                          f"episodes (CPU s, each step on its own{runs}, {tree}; interpreter "
                          f"start not counted: {parts})",
               "ours": f"{sum(steps.values()):.2f}", "peer": "—", "ratio": "—", "goal": "",
               "machine": mach, "command": CMD}


def export_audit_scale(doc: dict[str, Any]) -> Iterator[dict[str, str]]:
    """Yield one row per export (format, size) and per audited store, then where the time
    goes."""
    yield from _exports(doc)
    yield from _audits(doc)
    yield from _steps(doc)


def evidence_verify_memory(doc: dict[str, Any]) -> Iterator[dict[str, str]]:
    """Yield one row per store of benchmarks/evidence_verify_memory.py."""
    rev = doc.get("before_revision") or "the older tree"
    cmd = "`python benchmarks/evidence_verify_memory.py`"
    for c in doc["cases"]:
        t, b = c["this"], c.get("before")
        same = ("; the same findings as before" if c.get("same_findings") else
                "; findings NOT the same as before" if b else "")
        yield {"benchmark": "evidence_verify_memory",
               "measure": f"`agm evidence verify S` (full check), {t['episodes']:,} episodes, "
                          f"{t['result']} (peak RSS MiB; {t['wall_s']:.1f} s wall, "
                          f"{t['cpu_s']:.1f} s CPU; {t['kib_per_episode']:.2f} KiB/episode "
                          f"beyond `agm --version`{same})",
               "ours": f"{t['peak_rss_mib']:.1f}",
               "peer": (f"before ({rev}) {b['peak_rss_mib']:.1f} MiB, {b['wall_s']:.1f} s "
                        f"wall, {b['cpu_s']:.1f} s CPU" if b else "—"),
               "ratio": f"{b['peak_rss_mib'] / t['peak_rss_mib']:.2f}x less" if b else "—",
               "goal": "peak RSS not growing with the store as the older tree's does; the "
                       "same findings", "machine": _mach(doc, t),
               "command": cmd}
