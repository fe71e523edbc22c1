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
            f"re-graded with {doc['evaluator']}; stored vs recomputed: n01 (fail to pass) "
            f"{t['n01']}, n10 (pass to fail) {t['n10']}, unchanged {t['n00'] + t['n11']}.")
        if r["changed"]:
            d.table(["episode", "stored", "recomputed", "components"],
                    [[code(c["episode_id"]), c["stored"], c["recomputed"],
                      code(str(c.get("components")))] for c in r["changed"]],
                    "Transitions and the component that caused each")
        if r["not_regraded"]:
            d.table(["episode", "why not re-graded"],
                    [[code(c["episode_id"]), c["problem"]] for c in r["not_regraded"]])
    d.note(f"Produced by {code('agentmetrology ' + doc['package']['version'])}.")
    guard.check(*(t for b in d.blocks for t in b.texts()))
    return to_markdown(d.blocks)
