"""Render report.md and report.html from experiment.json (formatting only; no new numbers)."""

from __future__ import annotations

from typing import Any

from agentmetrology.report.blocks import Doc, code, to_html, to_markdown
from agentmetrology.report.html import escape
from agentmetrology.report.numberguard import NumberGuard


def _first_screen(d: Doc, doc: dict[str, Any]) -> None:
    p = doc["plan"]
    d.h(f"Experiment {code(doc['experiment'])}: verdicts", 1)
    d.p(f"Hypothesis: {p['hypothesis']}")
    d.p(f"Frozen plan {code(doc['plan_digest'][:16])} (registration "
        f"{code(doc['registration'])}), evaluated mechanically. Rule: {doc['decision_rule']}.")
    by: dict[tuple[str, str], dict[str, str]] = {}
    for c in doc["cells"]:
        by.setdefault((c["target"], c["level"]), {})[c["scorer"]] = c["verdict"]
    scorer = p["scorer"]
    rows = [[code(t), lv, f"{p['metrics'][lv]} (ground truth)", v.get("ground_truth_f1"),
             v.get(scorer)] for (t, lv), v in by.items()]
    d.table(["target", "level", "outcome", "ground truth", f"designated scorer {scorer}"], rows,
            "Verdict per target, level and scorer")
    split = [f"{code(t)} at {lv}" for (t, lv), v in by.items()
             if v.get(scorer) == "confirmed" and v.get("ground_truth_f1") != "confirmed"]
    if split:
        d.note("Confirmed under the designated scorer but not under ground truth: "
               + ", ".join(split) + ".")
    if doc["deviations"]:
        s = doc["summary"]
        d.note(f"{s['deviations']} deviation(s) from the plan ({s['missing_values']} missing "
               "values, excluded, never scored): see Deviations.")
    else:
        d.p("No deviations: every planned episode has a value under every scorer.")


def _invariance(d: Doc, doc: dict[str, Any]) -> None:
    same = [x for x in doc.get("decision_invariance", []) if x["invariant"]]
    if same:
        d.note("Decision-invariant design: every target gives the same per-seed ground truth at "
               + "; ".join(f"{code(x['arm'])} ({x['level']})" for x in same)
               + ". There the design cannot tell the targets' decisions apart, whatever "
               "they decide.")


def _comparisons(d: Doc, doc: dict[str, Any]) -> None:
    d.h("Paired comparisons")
    rows = [[code(c["target"]), c["level"], code(c["scorer"]), c["outcome"], c["pairs"],
             d.estimate(c["delta"]), d.estimate(c["cliffs_delta"]),
             None if c["sign_flip"] is None else c["sign_flip"]["p_value"], c["p_holm"],
             c["verdict"]] for c in doc["cells"]]
    a, b = doc["cells"][0]["baseline"], doc["cells"][0]["arm"]
    d.table(["target", "level", "scorer", "outcome", "pairs", "delta [95% CI]",
             "Cliff's delta [CI]", "sign-flip p", "Holm p", "verdict"], rows,
            f"delta = {code(b)} − {code(a)}, paired by seed")


def _curve_svg(c: dict[str, Any], width: int = 420, height: int = 220) -> str:
    pts = c["curve"]["points"]
    vals = [q["value"] for pt in pts for q in pt["points"]]
    vals += [v for pt in pts if pt["band"] for v in pt["band"]["interval"]]
    lo, hi = (min(vals), max(vals)) if vals else (0.0, 1.0)
    lo, hi = (lo - 0.5, hi + 0.5) if hi == lo else (lo, hi)
    pad = 36

    def x(dose: float) -> float:
        return pad + dose * (width - 2 * pad)

    def y(v: float) -> float:
        return height - pad - (v - lo) / (hi - lo) * (height - 2 * pad)

    title = f"{c['target']} {c['level']} {c['outcome']}"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'role="img" aria-label="{escape(title)}">',
           f'<text x="0" y="14" font-size="12" font-weight="600">{escape(title)}</text>',
           f'<rect x="{pad}" y="{pad}" width="{width - 2 * pad}" height="{height - 2 * pad}" '
           'fill="none" stroke="#999"/>']
    band = [pt for pt in pts if pt["band"]]
    if band:
        upper = " ".join(f"{x(pt['dose']):.1f},{y(pt['band']['interval'][1]):.1f}" for pt in band)
        lower = " ".join(f"{x(pt['dose']):.1f},{y(pt['band']['interval'][0]):.1f}"
                         for pt in reversed(band))
        out.append(f'<polygon points="{upper} {lower}" fill="#4c78a8" fill-opacity="0.2"/>')
    for pt in pts:
        for q in pt["points"]:
            out.append(f'<circle cx="{x(pt["dose"]):.1f}" cy="{y(q["value"]):.1f}" r="2.5" '
                       'fill="#555" fill-opacity="0.5"/>')
    line = " ".join(f"{x(pt['dose']):.1f},{y(pt['mean']):.1f}" for pt in pts
                    if pt["mean"] is not None)
    out.append(f'<polyline points="{line}" fill="none" stroke="#4c78a8" stroke-width="2"/>')
    out.append("</svg>")
    return "".join(out)


def _curves(d: Doc, doc: dict[str, Any]) -> None:
    d.h("Degradation curves")
    for c in doc["cells"]:
        cv = c["curve"]
        mono = cv["monotone_non_increasing"]
        d.h(f"{code(c['target'])} at {c['level']}, {code(c['scorer'])} ({c['outcome']})", 3)
        d.figure(_curve_svg(c), "Line: mean per dose; band: seeded bootstrap 95% interval; "
                 "dots: every per-seed value.")
        d.table(["dose", "n", "mean", "bootstrap band", "per-seed values"],
                [[pt["dose"], pt["n"], pt["mean"],
                  "n/a" if not pt["band"] else
                  f"[{d.g.fmt(pt['band']['interval'][0])}, {d.g.fmt(pt['band']['interval'][1])}]",
                  ", ".join(d.g.fmt(q["value"]) for q in pt["points"])] for pt in cv["points"]])
        d.p("Means monotone non-increasing in dose: "
            + ("n/a" if mono is None else "yes" if mono else "no") + ".")


def _deviations(d: Doc, doc: dict[str, Any]) -> None:
    d.h("Deviations from the plan")
    if not doc["deviations"]:
        d.p("None.")
        return
    d.table(["kind", "target", "level", "arm", "scorer", "why", "planned n", "analysed n"],
            [[x["kind"], code(x["target"]), x["level"], code(x["arm"]), code(x["scorer"]),
              x["why"], x["planned_n"], x["analysed_n"]] for x in doc["deviations"]])


def render_experiment_report(doc: dict[str, Any]) -> tuple[str, str]:
    """Return (report.md, report.html) for experiment.json; refuses unguarded numbers."""
    guard = NumberGuard(doc)
    d = Doc(guard)
    _first_screen(d, doc)
    _invariance(d, doc)
    _comparisons(d, doc)
    if doc["plan"]["kind"] == "curve":
        _curves(d, doc)
    _deviations(d, doc)
    guard.check(*(t for b in d.blocks for t in b.texts()))
    return to_markdown(d.blocks), to_html(d.blocks, f"Experiment: {doc['experiment']}")
