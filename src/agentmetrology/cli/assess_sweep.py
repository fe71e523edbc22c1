"""The masking sweep's table: mechanism x proportion, raw checker vs completeness-aware gate."""

from __future__ import annotations

import textwrap
from typing import Any


def _band(e: dict[str, Any]) -> str:
    env = e["envelope"]
    return "—" if env is None else f"[{env[0] * 100:.1f}%, {env[1] * 100:.1f}%]"


def render_sweep(doc: dict[str, Any]) -> str:
    """Return the sweep as text that fits 80 columns (one row per configuration): k masked,
    kpas of them passing originally, raw and gate established passes and envelopes."""
    out = textwrap.wrap(f"masking sweep: {doc['environment']} {doc['agent']}, "
                        f"{doc['executions']} trajectories, withheld {', '.join(doc['masked'])} "
                        f"(sweep seed {doc['sweep_seed']})", 80, subsequent_indent="  ")
    out += [f"{'mechanism':<14} {'prop':>5} {'k':>3} {'kpas':>4}  {'raw':>4} "
            f"{'raw envelope':<16} {'gate':>4} gate envelope"]
    for c in doc["sweep"]:
        out.append(f"{c['mechanism']:<14} {c['proportion'] * 100:>4.1f}% {c['masked']:>3} "
                   f"{c['masked_passing']:>4}  {c['raw']['pass']:>4} {_band(c['raw']):<16} "
                   f"{c['gate']['pass']:>4} {_band(c['gate'])}".rstrip())
    return "\n".join(out)
