"""The README rows of benchmarks/json_keys.py (read by benchmarks/table.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def json_keys(doc: dict[str, Any]) -> Iterator[dict[str, str]]:
    """Rows of benchmarks/json_keys.py: CPU the repeated-key check adds to parse and import."""
    load = f"load {doc['load_before'][0]:.2f} -> {doc['load_after'][0]:.2f}"
    mach = f"{doc.get('machine', '?')}, {doc.get('cpus', '?')} cpus, py {doc.get('python')}, {load}"
    for c in doc["cases"]:
        for what, label in (("parse", "parse_json"), ("load", "load_archive")):
            m = c[what]
            yield {"benchmark": "json_keys",
                   "measure": f"{label} CPU (ms) of {c['file']} ({c['bytes']:,} bytes), "
                              f"repeated keys found (median of {doc['rounds']}; min "
                              f"{m['after']['min_ms']:.1f} vs {m['before']['min_ms']:.1f})",
                   "ours": f"{m['after']['median_ms']:.1f}",
                   "peer": f"unchecked {m['before']['median_ms']:.1f}",
                   "ratio": f"+{m['overhead_ms']:.1f} ms ({m['overhead_pct']:+.1f}%)",
                   "goal": "small", "machine": mach,
                   "command": "`python benchmarks/json_keys.py`"}
