"""Render report.md and report.html from experiment.json (formatting only; no new numbers)."""

from __future__ import annotations

from typing import Any

from agentmetrology.records.verdict import n_counted
from agentmetrology.report.blocks import Doc, code, prose, to_html, to_markdown
from agentmetrology.report.experiment_dose import (
    dose_section,
    interval_text,
    p_side,
    said_why,
)
from agentmetrology.report.experiment_svg import curve_svg
from agentmetrology.report.numberguard import NumberGuard


def _verdicts_of(doc: dict[str, Any], cell: dict[str, Any]) -> str:
    """Return the verdicts of a cell's target, level and scorer: one, or each with its comparison.

    A plan with several comparisons per target (arms, slacks) has one verdict per comparison;
    they are named (`confirmed at slack 0; not confirmed at slack 1, 2, 4`) unless all agree.
    """
    same = [c for c in doc["cells"] if (c["target"], c["level"], c["scorer"])
            == (cell["target"], cell["level"], cell["scorer"])]
    verdicts = list(dict.fromkeys(_said(c) for c in same))
    if len(verdicts) == 1:
        return verdicts[0]
    rules = [c.get("rule") or {} for c in same]
    said, each = _said, ""
    if all(r.get("sufficient") for r in rules) and len({(r.get("n"), r.get("counted"))
                                                         for r in rules}) == 1:
        # one n for every comparison: said once, after the verdicts
        said, each = _bare, (f" (n = {rules[0]['n']} "
                                                      f"{rules[0]['counted']} each)")
        verdicts = list(dict.fromkeys(said(c) for c in same))
    what = "slack " if "slack" in cell else ""
    return "; ".join(f"{v} at {what}" + ", ".join(_compared(c) for c in same if said(c) == v)
                     for v in verdicts) + each


def _bare(cell: dict[str, Any]) -> str:
    """Return a cell's verdict alone (its n said elsewhere)."""
    return str(cell["verdict"])


def _said(cell: dict[str, Any]) -> str:
    """Return a cell's verdict as said: with the pairs it rests on, or as insufficient evidence."""
    return str((cell.get("rule") or {}).get("text", cell["verdict"]))


def _compared(cell: dict[str, Any]) -> str:
    """Return what a cell compares: its slack (dose plans) or its arm."""
    return str(cell["slack"]) if "slack" in cell else code(cell["arm"])


def _first_screen(d: Doc, doc: dict[str, Any]) -> None:
    p = doc["plan"]
    d.h(f"Experiment {code(doc['experiment'])}: verdicts", 1)
    d.p(f"Hypothesis: {p['hypothesis']}")
    d.p(f"Frozen plan {code(doc['plan_digest'][:16])} (registration "
        f"{code(doc['registration'])}), evaluated mechanically. Rule: {doc['decision_rule']}.")
    by: dict[tuple[str, str], dict[str, str]] = {}
    for c in doc["cells"]:
        by.setdefault((c["target"], c["level"]), {})[c["scorer"]] = _verdicts_of(doc, c)
    scorer = p["scorer"]
    rows = [[code(t), lv, f"{p['metrics'][lv]} (ground truth)", v.get("ground_truth_f1"),
             v.get(scorer)] for (t, lv), v in by.items()]
    d.table(["target", "level", "outcome", "ground truth", f"designated scorer {scorer}"], rows,
            "Verdict per target, level and scorer")
    truth = {(c["target"], c["level"], c["arm"]): c["verdict"] for c in doc["cells"]
             if c["scorer"] == "ground_truth_f1"}
    split = list(dict.fromkeys(
        f"{code(c['target'])} at {c['level']} (n = {n_counted(c['pairs'], 'paired seeds')})"
        for c in doc["cells"]
        if c["scorer"] == scorer and c["verdict"] == "confirmed"
        and truth.get((c["target"], c["level"], c["arm"])) != "confirmed"))
    if split:
        d.note("Confirmed under the designated scorer but not under ground truth: "
               + ", ".join(split) + ".")
    pw = doc["power"]
    d.p(f"Power of the rule at the planned n = {pw['n']} for a standardized effect of "
        f"{d.g.fmt(pw['effect'])}: {d.g.fmt(pw['power'])} (lower bound; see Power)."
        + ("" if pw["can_confirm"] else " The rule can never confirm at this n: the smallest "
           f"Holm-adjusted p is {d.g.p(pw['smallest_holm_p'])}."))
    if doc["deviations"]:
        s = doc["summary"]
        d.note(f"{s['deviations']} deviation(s) from the plan ({s['missing_values']} missing "
               "values, excluded, never scored): see Deviations.")
    else:
        d.p("No deviations: every planned episode has a value under every scorer.")


def _invariance(d: Doc, doc: dict[str, Any]) -> None:
    for group, items in (("target", doc["decision_invariance"]),
                         ("calibration rule", doc["calibration"]["invariance"])):
        same = [x for x in items if x["invariant"]]
        if same:
            # invariant means complete: every planned seed of every target has a value
            d.note(f"Decision-invariant design: every {group} gives the same per-seed ground "
                   "truth at " + "; ".join(f"{code(x['arm'])} ({x['level']})" for x in same)
                   + f", on each of the n = {n_counted(doc['plan']['n'], 'seeds')} planned. "
                   f"There the design cannot tell the {group}s' decisions apart, whatever "
                   "they decide.")


def _arms(d: Doc, doc: dict[str, Any]) -> None:
    d.h("Per arm: coverage, quota deaths, skips")
    d.table(["level", "agent", "role", "arm", "recorded of planned", "coverage (mean)",
             "episodes with coverage", "quota deaths", "SKIP decisions",
             "episodes with a SKIP", "decisions"],
            [[r["level"], code(r["agent"]), r["role"], code(r["arm"]),
              f"{r['recorded']} of {r['planned']}", r["coverage"], r["coverage_n"],
              r["quota_deaths"], r["skips"], r["episodes_with_skip"], r["decisions"]]
             for r in doc["arms"]],
            "Coverage: mean recall of ground truth over the episodes with a value (their count "
            "beside it: a recorded episode without one, a measurement failure, is left out and "
            "listed under Deviations). A quota "
            "death: the episode ran into the request quota. A SKIP: a page given up at an L1 "
            "decision (levels without that question show 0 decisions).")


def _calibration(d: Doc, doc: dict[str, Any]) -> None:
    cal = doc["calibration"]
    if not cal["rules"]:
        return
    d.h("Rule calibration")
    d.p("Fixed rules run on the identical protocol (same arms, seeds and levels): if the "
        "design cannot tell these deliberately different decisions apart, it cannot tell a "
        "model's apart either.")
    d.table(["rule", "level", "arm", "outcome", "n", "mean", "per-seed values"],
            [[code(o["rule"]), o["level"], code(o["arm"]), o["outcome"], o["n"], o["mean"],
              ", ".join(d.g.fmt(v) for v in o["per_seed"])] for o in cal["outcomes"]])
    rows = [[x["level"], code(x["arm"]), x["distinct_vectors"], len(x["targets"]),
             "no (decision-invariant)" if x["invariant"] else
             "incomplete" if not x["complete"] else
             "; ".join(f"{code(a)} = {code(b)}" for a, b in x["indistinguishable"])
             or "every pair"] for x in cal["invariance"]]
    if rows:
        d.table(["level", "arm", "distinct per-seed outcome vectors", "rules",
                 "told apart by outcome (else: pairs with identical outcomes)"], rows,
                "Compare the per-arm table: quota deaths and SKIP counts may still differ "
                "where outcomes cannot.")
    _variance_table(d, cal["variance"], "rule")


def _variance_table(d: Doc, items: list[dict[str, Any]], agent: str) -> None:
    rows = []
    for v in items:
        sh = v["shares"] or {}
        rows.append([v["level"], code(v["scorer"]), v["seeds"], sh.get("a"), sh.get("b"),
                     sh.get("ab"), sh.get("task"), sh.get("residual"), v["why"] or "-"])
    if rows:
        d.table(["level", "scorer", "seeds", "eta² arm", f"eta² {agent}",
                 f"eta² arm × {agent}", "eta² seed (block)", "eta² residual", "note"], rows,
                "Two-factor variance shares over the seeds complete in every cell.")


def _power(d: Doc, doc: dict[str, Any]) -> None:
    pw = doc["power"]
    d.h("Power for the planned n")
    d.p(f"Method: {pw['method']}. Effect {d.g.fmt(pw['effect'])} ({pw['effect_kind']}), "
        f"n = {pw['n']}, family of {pw['family']} tests (alpha {d.g.fmt(pw['alpha'])}, "
        f"{d.g.fmt(pw['alpha_per_test'])} per test), {pw['simulations']} simulations, "
        f"{pw['draws']} sign vectors, seed {pw['seed']}.")
    d.table(["power", "95% interval", "size under the null", "95% interval",
             "smallest Holm p", "can confirm"],
            [[pw["power"], f"[{d.g.fmt(pw['interval'][0])}, {d.g.fmt(pw['interval'][1])}]",
              pw["size"], f"[{d.g.fmt(pw['size_interval'][0])}, "
              f"{d.g.fmt(pw['size_interval'][1])}]", d.g.p(pw["smallest_holm_p"]),
              pw["can_confirm"]]])


def _delta(d: Doc, est: dict[str, Any] | None) -> str:
    """Return delta with its CI, each end on the side of 0 it lies (the rule reads its sign)."""
    if not est or not est.get("interval"):
        return d.estimate(est)
    return f"{d.g.fmt(est['value'])} {interval_text(d.g.fmt, est['interval'])}"


def _comparisons(d: Doc, doc: dict[str, Any]) -> None:
    d.h("Paired comparisons")
    rows = [[code(c["target"]), c["level"], code(c["scorer"]), c["outcome"], code(c["arm"]),
             c["pairs"], _delta(d, c["delta"]), d.estimate(c["cliffs_delta"]),
             p_side(d.g.p, None if c["sign_flip"] is None else c["sign_flip"]["p_value"]),
             p_side(d.g.p, c["p_holm"]), c["family_size"],
             d.g.p(None if c["sign_test"] is None else c["sign_test"]["p_value"]),
             _said(c)] for c in doc["cells"]]
    a = doc["cells"][0]["baseline"]
    base = ("its slack's baseline (" + code(doc["dose"]["baseline"]) + ")" if "dose" in doc
            else code(a))
    d.table(["target", "level", "scorer", "outcome", "arm", "pairs", "delta [95% CI]",
             "Cliff's delta [CI]", "sign-flip p", "Holm p", "Holm family",
             "exact sign test p", "verdict"], rows,
            f"delta = arm − {base}, paired by seed; Holm over the "
            f"{'slacks' if 'dose' in doc else 'arms'} and scorers of one "
            "target and level; the exact sign test (ties dropped) is reported beside the rule."
            + said_why([e for c in doc["cells"] for e in (c["delta"], c["cliffs_delta"])]))
    d.h("Flips of PASS between arms", 3)
    frows = []
    for c in doc["cells"]:
        f = c["flips"]
        fl, ex = f["flips"], f["excess"]
        frows.append([code(c["target"]), c["level"], code(c["scorer"]), code(c["arm"]),
                      None if fl is None else f"{fl['n01']} / {fl['n10']} of {fl['n']}",
                      None if fl is None else fl["value"], d.estimate(ex), f["why"] or "-"])
    d.table(["target", "level", "scorer", "arm", "fail→pass / pass→fail", "flip rate",
             "excess flip rate [CI]", "note"], frows,
            "PASS is the scorer's own status; the excess flip rate subtracts the flip rate "
            "between identical reruns of the baseline arm."
            + said_why([c["flips"]["excess"] for c in doc["cells"]]))
    d.h("Variance shares", 3)
    _variance_table(d, doc["variance"], "target")


def _band_text(d: Doc, band: dict[str, Any] | None) -> str:
    """Return a dose's bootstrap band as printed: `[lo, hi]`, `no interval` (fewer than 3
    seeds: the table's caption says why), or n/a without values."""
    if not band:
        return "n/a"
    iv = band.get("interval")
    return "no interval" if not iv else f"[{d.g.fmt(iv[0])}, {d.g.fmt(iv[1])}]"


def _curve_n(cv: dict[str, Any]) -> str:
    """Return the seeds the monotone reading rests on (` (n = 3 seeds at every dose)`), naming
    the doses without a mean, which the reading leaves out."""
    ns = [pt["n"] for pt in cv["points"]]
    if not any(ns):
        return ""
    each = (f"n = {n_counted(ns[0], 'seeds')} at every dose" if len(set(ns)) == 1
            else "n = " + ", ".join(str(n) for n in ns) + " seeds by dose")
    empty = [str(pt["dose"]) for pt in cv["points"] if not pt["n"]]
    return f" ({each}" + (f"; dose {', '.join(empty)} without values left out" if empty
                          else "") + ")"


def _curves(d: Doc, doc: dict[str, Any]) -> None:
    d.h("Degradation curves")
    for c in doc["cells"]:
        cv = c["curve"]
        mono = cv["monotone_non_increasing"]
        d.h(f"{code(c['target'])} at {c['level']}, {code(c['scorer'])} ({c['outcome']})", 3)
        bare = [pt for pt in cv["points"] if pt["band"] and not pt["band"].get("interval")]
        d.figure(curve_svg(c), "Line: mean per dose; band: seeded bootstrap 95% interval; "
                 "dots: every per-seed value."
                 + (" The band leaves out a dose without an interval (see the table)."
                    if bare else ""))
        d.table(["dose", "n", "mean", "bootstrap band", "per-seed values"],
                [[pt["dose"], pt["n"], pt["mean"], _band_text(d, pt["band"]),
                  ", ".join(d.g.fmt(q["value"]) for q in pt["points"])] for pt in cv["points"]],
                said_why([pt["band"] for pt in bare]).strip())
        d.p("Means monotone non-increasing in dose: "
            + ("n/a" if mono is None else "yes" if mono else "no") + _curve_n(cv) + ".")


def _deviations(d: Doc, doc: dict[str, Any]) -> None:
    d.h("Deviations from the plan")
    if not doc["deviations"]:
        d.p("None.")
        return
    d.table(["kind", "target", "level", "arm", "scorer", "why", "planned n", "analysed n"],
            [[x["kind"], code(x["target"]), x["level"], code(x["arm"]), code(x["scorer"]),
              prose(x["why"]), x["planned_n"], x["analysed_n"]] for x in doc["deviations"]])


def render_experiment_report(doc: dict[str, Any]) -> tuple[str, str]:
    """Return (report.md, report.html) for experiment.json; refuses unguarded numbers."""
    guard = NumberGuard(doc)
    d = Doc(guard)
    d.evidence_banner(doc.get("evidence"))
    _first_screen(d, doc)
    _invariance(d, doc)
    if "dose" in doc:
        dose_section(d, doc)
    _comparisons(d, doc)
    _arms(d, doc)
    _calibration(d, doc)
    if doc["plan"]["kind"] == "curve":
        _curves(d, doc)
    _power(d, doc)
    _deviations(d, doc)
    guard.check(*(t for b in d.blocks for t in b.texts()))
    return to_markdown(d.blocks), to_html(d.blocks, f"Experiment: {doc['experiment']}")
