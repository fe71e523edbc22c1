"""Assessments as text that fits 80 columns: per view and estimand the admissible executions,
pass/fail/unknown, the envelope and coverage; and the masking sweep's table (mechanism x
proportion, raw checker vs completeness-aware gate). The documents are built by `assess`.
"""

from __future__ import annotations

import textwrap
from typing import Any

from agentmetrology.assess.executions import ESTIMANDS
from agentmetrology.records.verdict import n_counted

WIDTH = 80
VIEW_LABEL = {"original": "original", "masked_raw": "masked/raw",
              "masked_gate": "masked/gate"}


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x * 100:.1f}%"


def _line(view: str, estimand: str, e: dict[str, Any]) -> str:
    env = e["envelope"]
    band = "—" if env is None else f"[{_pct(env[0])}, {_pct(env[1])}]"
    ratio = "—" if e["decided_ratio"] is None else \
        f"{e['pass']}/{e['decided']} {_pct(e['decided_ratio'])}"
    fails = e["fail"] + e["partial"]
    return (f"{VIEW_LABEL[view]:<11} {estimand:<8} {e['admissible']:>4} {e['pass']:>4} "
            f"{fails:>4} {e['unknown']:>4}  {band:<16} {ratio:<14} {_pct(e['coverage']):>6}")


def render_assessment(doc: dict[str, Any]) -> str:
    """Return the assessment as text that fits 80 columns."""
    where = f"recorded in campaign {doc['campaign']}: " if "campaign" in doc else ""
    missing = doc.get("not_recorded") or 0  # planned in a store, never recorded
    of = (f" of {doc['planned']} planned ({missing} not recorded: not launched or pending)"
          if missing else "")
    runs = n_counted(doc["executions"], "executions")
    out = textwrap.wrap(f"{doc['environment']}: {where}{doc['agent']} at {doc['level']}, "
                        f"{runs}{of} ({', '.join(doc['tasks'])}; "
                        f"condition {doc['condition']})", WIDTH, subsequent_indent="  ")
    if doc["masked"]:
        held = ", ".join(f"{p} ({n} of {doc['executions']})"
                         for p, n in doc["withheld_in"].items())
        out.extend(textwrap.wrap(f"withheld from the evaluator's copy: {held}", WIDTH,
                                 subsequent_indent="  "))
    out.append(f"{'view':<11} {'estimand':<8} {'N':>4} {'pass':>4} {'fail':>4} {'unkn':>4}  "
               f"{'envelope':<16} {'decided':<14} {'cover':>6}")
    excluded = {"invalid": 0, "measurement_failure": 0}
    for view, est in doc["views"].items():
        for e in ESTIMANDS:
            out.append(_line(view, e, est[e]))
        for k in excluded:
            excluded[k] = max(excluded[k], est["contract"]["excluded"][k])
    out.append(f"excluded (not admissible): {excluded['invalid']} invalid, "
               f"{excluded['measurement_failure']} measurement failures")
    for view, est in doc["views"].items():
        checks = "; ".join(f"{name} " + " ".join(f"{s}={n}" for s, n in sorted(c.items()))
                           for name, c in est["checks"].items())
        out.extend(textwrap.wrap(f"checks ({VIEW_LABEL[view]}): {checks}", WIDTH,
                                 subsequent_indent="  ", break_on_hyphens=False))
    return "\n".join(out)


def _band(e: dict[str, Any]) -> str:
    env = e["envelope"]
    return "—" if env is None else f"[{env[0] * 100:.1f}%, {env[1] * 100:.1f}%]"


def render_sweep(doc: dict[str, Any]) -> str:
    """Return the sweep as text that fits 80 columns (one row per configuration): k masked,
    kpas of them passing originally, raw and gate established passes and envelopes."""
    out = textwrap.wrap(f"masking sweep: {doc['environment']} {doc['agent']}, "
                        f"{doc['executions']} trajector{'y' if doc['executions'] == 1 else 'ies'}, "
                        f"withheld {', '.join(doc['masked'])} "
                        f"(sweep seed {doc['sweep_seed']})", 80, subsequent_indent="  ")
    out += [f"{'mechanism':<14} {'prop':>5} {'k':>3} {'kpas':>4}  {'raw':>4} "
            f"{'raw envelope':<16} {'gate':>4} gate envelope"]
    for c in doc["sweep"]:
        out.append(f"{c['mechanism']:<14} {c['proportion'] * 100:>4.1f}% {c['masked']:>3} "
                   f"{c['masked_passing']:>4}  {c['raw']['pass']:>4} {_band(c['raw']):<16} "
                   f"{c['gate']['pass']:>4} {_band(c['gate'])}".rstrip())
    # The column names are abbreviations: say what each counts, as every table here does.
    out += textwrap.wrap("k: trajectories masked; kpas: of them, passing originally; raw, "
                         "gate: established passes under the raw checker (a masked copy "
                         "fails) and the completeness-aware gate (a masked copy is UNKNOWN), "
                         "each with its envelope [pass/N, (pass + unknown)/N]", 80)
    return "\n".join(out)
