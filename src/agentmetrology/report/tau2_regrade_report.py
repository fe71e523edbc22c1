"""Render a tau2 re-grade (regrade.json of a results file) as report.md; formatting only."""

from __future__ import annotations

from typing import Any

from agentmetrology.report.blocks import Doc, code, to_markdown
from agentmetrology.report.numberguard import NumberGuard


def render_tau2_regrade(doc: dict[str, Any], precision: int = 3) -> str:
    """Return report.md for a tau2 regrade.json; refuses unguarded numbers."""
    guard = NumberGuard(doc, precision=precision)
    d = Doc(guard)
    r = doc["regrade"]
    d.h(f"Re-grade: {code(doc['source'])}", 1)
    if not r["applicable"]:
        d.p(f"Not re-graded: {r['reason']}.")
    else:
        t = r["transitions"]
        d.p(f"Domain {code(r['domain'])}: {r['regraded']} of {r['simulations']} simulations "
            f"re-graded with {doc['evaluator']}; {r['reproduced']} reproduce the stored "
            f"reward; stored vs recomputed: n01 (fail to pass) {t['n01']}, n10 (pass to "
            f"fail) {t['n10']}, unchanged {t['n00'] + t['n11']}. Components recomputed in "
            f"this domain: {', '.join(r['components'])}.")
        if r["changed"]:
            d.table(["episode", "stored", "recomputed", "components", "changed by"],
                    [[code(c["episode_id"]), c["stored"], c["recomputed"],
                      code(str(c.get("components"))), ", ".join(c["changed_by"])]
                     for c in r["changed"]],
                    "Transitions and the component that caused each")
        if r["not_regraded"]:
            d.table(["episode", "why not re-graded"],
                    [[code(c["episode_id"]), c["problem"]] for c in r["not_regraded"]])
        k, a = r["component_checks"], r["action_checks"]
        d.p(f"Recomputed components against the stored `reward_breakdown`: {k['agree']} of "
            f"{k['compared']} agree.")
        d.p(f"Stored per-action checks against the replay (whatever the basis): "
            f"{a['agree']} of {a['compared']} gold actions agree, {a['disagree']} disagree.")
        if a["disagreements"]:
            d.table(["episode", "action", "stored", "replayed", "cause"],
                    [[code(x["episode_id"]), code(x["action"]), str(x["stored"]),
                      str(x["replayed"]), x["cause"]] for x in a["disagreements"]])
        d.table(["episode", "basis", "stored", "recomputed", "how"],
                [[code(x["episode_id"]), "+".join(x["basis"]), x["stored"],
                  "n/a" if x["recomputed"] is None else x["recomputed"],
                  x.get("note") or x["problem"] or "replayed"] for x in r["rows"]],
                "Every simulation: stored vs recomputed reward")
    d.note(f"Produced by {code('agentmetrology ' + doc['package']['version'])}.")
    guard.check(*(t for b in d.blocks for t in b.texts()))
    return to_markdown(d.blocks)
