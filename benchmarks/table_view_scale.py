"""Rows of benchmarks/view_scale.py for benchmarks/table.py: every viewer page on a large store."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

CMD = "`python benchmarks/view_scale.py`"


def view_scale(doc: dict[str, Any]) -> Iterator[dict[str, str]]:
    """Yield one row per page type: warm median (the figure), cold beside it, the 1 s goal."""
    load = ", ".join(f"{x:.2f}" for x in doc["loadavg_end"])
    mach = f"{doc['machine']}, {doc['cpus']} cpus, py {doc['python']}, load {load}"
    for p in doc["pages"]:
        worst = max(p["cold_s"], p["warm_median_s"])
        goal = f"< {doc['goal_s']} s cold and warm (" + (
            "met" if p["under_goal"] else f"missed by {worst / doc['goal_s']:.2f}x"
            + (f": {p['why']}" if p.get("why") else "")) + ")"
        old = p.get("before")
        was = (f"; before ({doc['before']}): cold {old['cold_s']:.3f} s, warm "
               f"{old['warm_median_s']:.4f} s" if old else "")
        yield {"benchmark": "view_scale",
               "measure": f"{p['page']}, {doc['administrations']:,} administrations "
                          f"({doc['recorded']:,} recorded) (server s in process, warm median "
                          f"of {doc.get('repeat', 5)}; cold {p['cold_s']:.3f} s, warm max "
                          f"{p['warm_max_s']:.3f} s; HTTP {p['status']}, {p['bytes']:,} bytes; "
                          f"load {p['load_before']:.1f} before{was})",
               "ours": f"{p['warm_median_s']:.4f}", "peer": "—", "ratio": "—", "goal": goal,
               "machine": mach, "command": CMD}
