"""Render `report.md` and `report.html` of an Inspect task audit from audit.json only.

The card and the first scorer's probes as every audit shows them, then what only this target
has: the samples audited (and those without a usable target, counted), each scorer's kind and
the evidence for it, the do-nothing (empty-trajectory) verdicts, every further scorer's probes,
and why any cell is INVALID. Every text passes the number guard.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.report.audit_report import _card, _probes, invalid_section
from agentmetrology.report.blocks import Doc, code, prose, to_html, to_markdown
from agentmetrology.report.numberguard import NumberGuard


def _num(g: NumberGuard, v: Any) -> str:
    return g.fmt(v) if isinstance(v, int | float) and not isinstance(v, bool) else "n/a"


def _samples(d: Doc, t: dict[str, Any]) -> None:
    d.h("Samples")
    text = (f"{t['samples_audited']} of the task's {t['dataset_samples']} samples audited; "
            f"{t['samples_without_target']} without a usable target (counted, not probed "
            "with forged outputs).")
    if t.get("reordered_by_id"):
        text += " The task shuffles its dataset: samples were taken in id order."
    if t.get("needs"):
        text += f" The task needs {t['needs']}."
    d.p(text)
    reasons = t.get("samples_without_target_by_reason") or {}
    if reasons:
        d.bullets([f"{n} × {prose(r)}" for r, n in reasons.items()])


def _kinds(d: Doc, t: dict[str, Any]) -> None:
    g = d.g
    d.h("Scorers")
    rows = []
    for k in t["scorers"]:
        e = k.get("empty_trajectory") or {}
        # a non-deterministic scorer's do-nothing verdicts are single draws: never a rate
        unreliable = " (unreliable: non-deterministic scorer)" if e.get("unreliable") else ""
        rows.append([code(k['scorer']), k["kind"], k["basis"],
                     f"{e.get('passed', 'n/a')} of {e.get('scored', 'n/a')}{unreliable}"
                     if e else "n/a",
                     "n/a" if unreliable or not e else _num(g, e.get("pass_rate")),
                     str(e.get("invalid", "n/a")) if e else "n/a"])
    d.table(["scorer", "kind", "evidence", "do-nothing passes", "do-nothing pass rate",
             "do-nothing INVALID"], rows)
    judge = t.get("judge")
    d.p("Judge: " + (f"{code(judge['model'])} at {code(judge['endpoint'])}." if judge else
                     "none given: a scorer that calls a model is not probed."))


def _more_probes(d: Doc, doc: dict[str, Any]) -> None:
    g = d.g
    for key, res in doc["stages"]["probes"].items():
        if key == "shipped":
            continue
        d.h(f"Probes of {code(res['scorer'])}")
        d.table(["probe", "n", "mean", "min", "INVALID", "ground truth mean"],
                [[code(p['probe']), str(p["n"]), _num(g, p["score_mean"]),
                  _num(g, p["score_min"]), str(p["invalid"]), _num(g, p["truth_mean"])]
                 for p in res["by_probe"]])


def render_inspect_report(doc: dict[str, Any]) -> tuple[str, str]:
    """Return (markdown, html) for an Inspect audit.json; raise if the number guard refuses."""
    g = NumberGuard(doc)
    d = Doc(g)
    title = f"Audit of {doc['audit']}"
    d.h(f"Audit of {prose(doc['audit'])}", 1)  # the task's spec, as the user wrote it
    d.p(f"Tool version {code(doc['tool_version'])}. Inspect task {code(doc['target']['spec'])}, "
        "probed in-process with forged outputs and a do-nothing trajectory; zero real model "
        "calls unless a judge was given.")
    _samples(d, doc["target"])
    _card(d, doc)
    _kinds(d, doc["target"])
    _probes(d, doc)
    _more_probes(d, doc)
    invalid_section(d, doc)
    d.h("Digests")
    d.bullets([f"{code(k)}: {code(v)}" for k, v in doc["digests"].items()])
    g.check(*(t for b in d.blocks for t in b.texts()))
    return to_markdown(d.blocks), to_html(d.blocks, title)
