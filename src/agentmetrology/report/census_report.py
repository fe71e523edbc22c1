"""Render the scorer census (census.json) as report.md, report.html and census.svg.

The table: benchmark × scorer kind × criterion sensitivity × empty-trajectory pass rate ×
licensed claim; benchmarks not probed are listed with what they need. The figure: each probed
scorer's do-nothing pass rate, coloured by its criterion verdict. Numbers come from the census
document only and pass the number guard.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.inspect_ext.audit.census import criterion_reading, judged
from agentmetrology.report import html as H
from agentmetrology.report.blocks import Doc, code, prose, to_html, to_markdown
from agentmetrology.report.numberguard import NumberGuard

COLORS = {"pass": "#54a24b", "fail": "#e45756", "not probed": "#9d9d9d"}


def _rate(s: dict[str, Any]) -> float | None:
    n = s.get("empty_scored")
    if s.get("empty_unreliable"):  # a non-deterministic scorer's count is no rate
        return None
    return s["empty_passed"] / n if n else None


def census_figure(doc: dict[str, Any]) -> str:
    """Return the SVG bar chart of do-nothing pass rates per probed scorer."""
    bars = []
    for r in doc["rows"]:
        for s in r["scorers"]:
            rate = _rate(s)
            if rate is None:
                continue
            bars.append(H.Bar(f"{r['benchmark'].removeprefix('inspect_evals/')}",
                              rate, f"{s['empty_passed']} of {s['empty_scored']} · "
                                    f"{s['kind']} · criterion {criterion_reading(s)}",
                              COLORS.get(criterion_reading(s), COLORS["not probed"])))
    return H.bar_chart(bars, "Do-nothing (empty trajectory) pass rate by benchmark",
                       max_value=1.0)


def _tau2(d: Doc, doc: dict[str, Any]) -> None:
    rows = doc.get("tau2") or []
    archive = doc.get("taubench_archive")
    if not rows and not archive:
        return
    d.h("Empty-trajectory census on tau-bench-style tasks")
    d.p("A do-nothing agent (answers nothing; the simulated user stops at once) on every task; "
        "the database criterion and the required-outputs criterion are counted separately.")
    table = []
    for t in rows:
        db, out = t.get("database_unchanged"), t.get("required_outputs")
        table.append([code(t['spec']), str(t["tasks"]),
                      f"{t['shipped']['passed']} of {t['shipped']['scored']}",
                      f"{db['passed']} of {db['scored']}" if db else "not split",
                      f"{out['passed']} of {out['scored']}" if out else "not split",
                      str(t["both"]) if "both" in t else "n/a",
                      str(t["shipped"]["invalid"])])
    if table:
        d.table(["domain", "tasks", "shipped scorer passes", "database unchanged",
                 "required outputs met", "both", "INVALID"], table)
    if archive:
        a = archive
        d.p(f"tau-bench archive {code(a['archive'])} ({a['tasks']} tasks): database unchanged by "
            f"the gold hash {a['database_unchanged_by_gold_hash']['passed']} of "
            f"{a['database_unchanged_by_gold_hash']['of']} tasks whose hash is recorded; by the "
            f"gold actions (no write) {a['database_unchanged_by_gold_actions']['passed']} of "
            f"{a['database_unchanged_by_gold_actions']['of']}; no required output "
            f"{a['required_outputs_none']['passed']} of {a['required_outputs_none']['of']}; "
            f"both {a['both']['passed']} of {a['both']['of']}.")


def render_census_report(doc: dict[str, Any]) -> tuple[str, str, str]:
    """Return (markdown, html, svg) for a census document; raise if the guard refuses it."""
    g = NumberGuard(doc)
    d = Doc(g)
    title = "Scorer census"
    d.h(title, 1)
    s = doc["summary"]
    d.p(f"Tool version {code(doc['tool_version'])}. {s['benchmarks']} benchmarks: {s['probed']} "
        f"probed, {s['not_probed']} not probed; {s['scorers']} scorers probed. Samples per "
        f"task: {doc['limit'] if doc['limit'] is not None else 'all'}.")
    rows = []
    for r in doc["rows"]:
        if r["status"] != "probed":
            continue
        for sc in r["scorers"]:
            # the verdict with the n it rests on; nothing judged (not probed) rests on no n
            v = sc.get("criterion_verdict") if judged(sc) else None
            crit = (v["text"] if v else sc["criterion"]) + (
                f" ({', '.join(sc['offending'])})"
                if sc["offending"] and sc["criterion"] == "fail" else "")
            if sc.get("criterion_reason"):
                crit += f" ({prose(sc['criterion_reason'])})"
            if v is None and judged(sc) and r.get("samples"):  # never a verdict without its n
                crit += f"; n = {r['samples']} samples"
            elif v is None and judged(sc) and sc.get("criterion_pairs"):
                crit += f"; n = {sc['criterion_pairs']} probe pairs"
            if r.get("without"):
                crit += f"; probed without its {r['without']} sandbox (forged outputs only)"
            empty = (f"{sc['empty_passed']} of {sc['empty_scored']}"
                     if sc.get("empty_scored") else "n/a")
            if sc.get("empty_reason") and not sc.get("empty_scored"):
                empty += f" ({prose(sc['empty_reason'])})"
            if sc.get("empty_unreliable"):
                empty += " (unreliable: non-deterministic scorer)"
            rows.append([code(r['benchmark']), code(sc['scorer']), sc["kind"], crit, empty,
                         sc["claim"]])
    d.table(["benchmark", "scorer", "scorer kind", "criterion sensitivity",
             "do-nothing passes", "licensed claim"], rows)
    d.figure(census_figure(doc), "Do-nothing pass rate per probed scorer; green: criterion "
                                 "pass, red: fail, grey: not probed.")
    missing = [f"{code(r['benchmark'])}: not probed: needs {r['needs']} ({prose(r['reason'])})"
               for r in doc["rows"] if r["status"] != "probed"]
    if missing:
        d.h("Not probed")
        d.bullets(missing)
    _tau2(d, doc)
    d.h("Counts")
    d.bullets(["scorer kinds: " + ", ".join(f"{k} {v}" for k, v in s["by_kind"].items()),
               "criterion: " + ", ".join(f"{k} {v}" for k, v in s["by_criterion"].items()),
               "licensed claims: " + ", ".join(f"{k} {v}" for k, v in s["by_claim"].items())])
    g.check(*(t for b in d.blocks for t in b.texts()))
    return to_markdown(d.blocks), to_html(d.blocks, title), census_figure(doc)
