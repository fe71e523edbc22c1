"""Render the tau2 leaderboard (leaderboard.json) as report.md and report.html, with figures.

Formatting only: every number is a value of leaderboard.json; the prose passes the number guard.
Figures: reported vs recomputed pass^1 (a point per submission, the diagonal where they agree),
and the pass rate where doing nothing fails, per domain, in its ranking order.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.report import html as H
from agentmetrology.report.blocks import Doc, code, to_html, to_markdown
from agentmetrology.report.numberguard import NumberGuard

_MEASURE = {"reported": "reported pass^1", "recomputed": "recomputed pass^1",
            "where_doing_nothing_fails": "pass rate where doing nothing fails",
            "regraded": "re-graded pass^1"}


def scatter_svg(points: list[tuple[str, float, float]], title: str, size: int = 360) -> str:
    """Return reported (x) vs recomputed (y) on [0, 1] x [0, 1] as inline SVG, with the diagonal."""
    pad = 40
    span = size - 2 * pad

    def xy(x: float, y: float) -> tuple[float, float]:
        return pad + x * span, size - pad - y * span

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" role="img" '
           f'aria-label="{H.escape(title)}">',
           f'<text x="0" y="16" font-size="13" font-weight="600">{H.escape(title)}</text>',
           f'<rect x="{pad}" y="{pad}" width="{span}" height="{span}" fill="none" '
           'stroke="#999"/>',
           f'<line x1="{pad}" y1="{size - pad}" x2="{size - pad}" y2="{pad}" stroke="#bbb" '
           'stroke-dasharray="4 3"/>',
           f'<text x="{size / 2:.0f}" y="{size - 8}" font-size="11" text-anchor="middle">'
           'reported</text>',
           f'<text x="12" y="{size / 2:.0f}" font-size="11" transform="rotate(-90 12 '
           f'{size / 2:.0f})" text-anchor="middle">recomputed</text>']
    for label, x, y in points:
        cx, cy = xy(max(0.0, min(1.0, x)), max(0.0, min(1.0, y)))
        out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="#4c78a8">'
                   f'<title>{H.escape(label)}</title></circle>')
    out.append("</svg>")
    return "".join(out)


def _domain(d: Doc, name: str, view: dict[str, Any]) -> None:
    g = d.g
    d.h(f"Domain {code(name)}")
    rows = sorted(view["rows"], key=lambda r: (r["ranks"]["recomputed"] or 1 << 30, r["id"]))
    d.table(["submission", "model", "reported", "recomputed (stored)", "re-graded", "graded",
             "bounds",
             "do-nothing share", "passes on do-nothing tasks", "where doing nothing fails",
             "agent cost / simulation", "ranks (rep / rec / dn-fail)"],
            [[code(r["submission"]), code(r["model"]), r["reported"], r["recomputed"],
              r["regraded"],
              f"{r['graded']} / {r['planned']}",
              f"{g.fmt((r['bounds'] or {}).get('lower'))} .. "
              f"{g.fmt((r['bounds'] or {}).get('upper'))}",
              r["do_nothing_share"], r["passes_on_do_nothing_passable"],
              r["where_doing_nothing_fails"],
              "unpriced" if r["cost_unpriced"] else d.money(r["agent_cost_per_simulation"]),
              " / ".join("-" if r["ranks"][m] is None else str(r["ranks"][m])
                         for m in ("reported", "recomputed", "where_doing_nothing_fails"))]
             for r in rows], "One row per submission; ranks are 1 for the highest value; "
            "recomputed (stored): pass^1 from the stored rewards; re-graded: pass^1 after "
            "replaying the simulations (n/a: not asked or not re-gradable, see below)")
    notes = [f"{code(r['submission'])}: {r['regrade_note']}" for r in rows
             if r.get("regrade_note")]
    if notes:
        d.p("Re-grade (replaying each simulation with inspect-evals' tau2 checks): "
            + "; ".join(notes) + ".")
    flagged = [code(r["submission"]) for r in rows if r["all_passes_do_nothing_passable"]]
    if flagged:
        d.p("**Every pass falls on a task a do-nothing agent also passes:** "
            + ", ".join(flagged) + ".")
    for c in view["comparisons"]:
        d.p(f"Ranking by {_MEASURE[c['first']]} vs by {_MEASURE[c['second']]}: "
            f"{c['strict_reversals']} strict reversal(s) and {c['ties']} tie(s) among "
            f"{c['pairs']} pair(s) of {c['units']} submissions.")
    points = [(r["submission"], r["reported"], r["recomputed"]) for r in rows
              if r["reported"] is not None and r["recomputed"] is not None]
    if points:
        d.figure(scatter_svg(points, f"{name}: reported vs recomputed pass^1"),
                 "Points on the dashed diagonal agree; below it the claim is higher than the "
                 "simulations give.")
    adjusted = sorted((r for r in rows if r["where_doing_nothing_fails"] is not None),
                      key=lambda r: (-r["where_doing_nothing_fails"], r["id"]))
    d.chart(f"{name}: pass rate where doing nothing fails",
            [H.Bar(r["submission"], r["where_doing_nothing_fails"],
                   g.fmt(r["where_doing_nothing_fails"])) for r in adjusted], max_value=1.0)


def render_leaderboard(doc: dict[str, Any], precision: int = 3) -> tuple[str, str]:
    """Return (report.md, report.html) for leaderboard.json; refuses unguarded numbers."""
    guard = NumberGuard(doc, precision=precision)
    d = Doc(guard)
    d.h("tau2 leaderboard audit", 1)
    d.p(f"{doc['submissions']} results file(s), each audited as `agm archive audit` audits it. "
        f"Rank reversals count pairs whose order flips by more than the tie tolerance "
        f"{guard.fmt(doc['tie_tolerance'])} on both measures; a pair within it on either "
        f"measure is a tie. Produced by {code('agentmetrology ' + doc['package']['version'])}.")
    d.table(["file", "bytes", "sha256"], [[code(i["name"]), i["bytes"], code(i["sha256"])]
                                          for i in doc["inputs"]])
    for name, view in doc["domains"].items():
        _domain(d, name, view)
    guard.check(*(t for b in d.blocks for t in b.texts()))
    return to_markdown(d.blocks), to_html(d.blocks, "tau2 leaderboard audit")

