"""Render `report.md` and `report.html` of an audit from audit.json, and nothing else.

No number is computed here: every number printed is a value of audit.json formatted at the
report's precision, and every text passes the number guard before anything is returned.
Identifiers (targets, tasks, probes, scorers, digests) are printed as `code spans`.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from agentmetrology.audit.card import (
    OPTIONAL_ROWS,
    basis_text,
    cell_text,
    optional_rows,
    row_cell,
    scorer_code_text,
)
from agentmetrology.report.blocks import Doc, code, prose, to_html, to_markdown
from agentmetrology.report.numberguard import NumberGuard
from agentmetrology.report.solvability_section import solvability_section
from agentmetrology.report.spectrum_svg import SpectrumRow, spectrum_chart

ROW_LABELS = {
    "scorer_kind": "scorer kind", "criterion_sensitivity": "criterion sensitivity",
    "ownership_completeness": "ownership completeness", "non_degeneracy": "non-degeneracy",
    "replay": "replay",
}


def _num(g: NumberGuard, v: Any) -> str:
    return g.fmt(v) if isinstance(v, int | float) and not isinstance(v, bool) else "n/a"


def _config_label(c: dict[str, Any]) -> str:
    return f"{code(c['level'])} + {code(c['scorer'])}" if c["level"] else code(c['scorer'])


def _card(d: Doc, doc: dict[str, Any]) -> None:
    card = doc["card"]
    d.h("Validity card")
    configs = card["configurations"]
    unchecked = (configs[0].get("claim_basis") or {}).get("not_checked") if configs else None
    # a claim licensed without a check of the card says so where the claim is first read
    without = (" Licensed without checking: " + ", ".join(k.replace("_", " ")
                                                           for k in unchecked) + "."
               if unchecked else "")
    d.p(f"Licensed claim of the shipped configuration ({code(card['shipped_configuration'])}): "
           f"{card['licensed_claim']}.{without}")
    scorer_code = scorer_code_text(card, code)
    if scorer_code:
        d.p(scorer_code[0].upper() + scorer_code[1:] + ".")
    headers = ["row", *[_config_label(c) for c in configs]]
    labels = {**ROW_LABELS, **{k: OPTIONAL_ROWS[k] for k in optional_rows(configs)}}
    rows = [[label, *[cell_text(row_cell(c, key)) for c in configs]]
            for key, label in labels.items()]
    rows.append(["licensed claim", *[c["licensed_claim"] for c in configs]])
    d.table(headers, rows)
    items = []
    for c in configs:
        crit = c["rows"]["criterion_sensitivity"]["evidence"]
        offending = ", ".join(code(o) for o in crit.get("offending", [])) or "none"
        source = c["rows"]["criterion_sensitivity"]["source_digest"] or ""
        # a check that could not fail says why beside its numbers (they are no evidence)
        why = f"; {crit['reason']}" if crit.get("by_definition") and crit.get("reason") else ""
        items.append(f"{_config_label(c)}: criterion pairs compared "
                     f"{crit.get('pairs_compared')}, offending {crit.get('offending_pairs')} "
                     f"({offending}){why}; source {code(source)}")
    # what each licensed claim rests on, and the checks it was licensed without
    items += [f"{_config_label(c)}: {basis_text(c.get('claim_basis'))}" for c in configs
              if c.get("claim_basis")]
    seen = set()
    for c in configs:
        if c["level"] in seen:
            continue
        seen.add(c["level"])
        nd = c["rows"]["non_degeneracy"]
        items.append(f"{_config_label(c).split(' + ')[0]} non-degeneracy: {nd['status']} "
                     f"({_nondeg_evidence(nd['evidence'])})")
    d.bullets(items)


def _nondeg_evidence(ev: dict[str, Any]) -> str:
    """Return the evidence of a non-degeneracy cell as prose (only values it holds)."""
    parts = [f"{code(k)} {v}" for k, v in ev.items()
             if k not in ("reason", "note", "fixed_rules", "model_payload_pairs",
                          "byte_identical_pairs", "identical_pairs_by_field", "model_targets")]
    if "model_payload_pairs" in ev:
        parts.append(f"{ev['byte_identical_pairs']} of {ev['model_payload_pairs']} model-target "
                     "payload pairs byte-identical")
    if "fixed_rules" in ev:
        parts.append(f"{ev['fixed_rules']} fixed rules reported, not counted")
    if ev.get("reason"):
        parts.insert(0, str(ev["reason"]))
    return "; ".join(parts) or "no evidence"


def _probes(d: Doc, doc: dict[str, Any]) -> None:
    g = d.g
    probes = doc["stages"]["probes"]
    shipped = {p["probe"]: p for p in probes["shipped"]["by_probe"]}
    d.h("Forged-submission probes")
    if "ground_truth" in probes:
        truth = {p["probe"]: p["score_mean"] for p in probes["ground_truth"]["by_probe"]}
        d.p(f"Each probe is scored by the shipped scorer {code(probes['shipped']['scorer'])} and "
               f"by ground truth {code(probes['ground_truth']['scorer'])} on every audited task "
               "and seed; means over tasks and seeds.")
    else:
        truth = {p["probe"]: p["truth_mean"] for p in probes["shipped"]["by_probe"]}
        d.p(f"Each probe is scored by the shipped scorer {code(probes['shipped']['scorer'])}; "
               "ground truth is the probe's quality by construction from the oracle.")
    rows = [[code(name), str(p["n"]), _num(g, p["score_mean"]), _num(g, p["score_min"]),
             str(p["invalid"]), _num(g, truth.get(name))]
            for name, p in shipped.items()]
    d.table(["probe", "n", "shipped mean", "shipped min", "INVALID", "ground truth mean"], rows)
    off = probes["shipped"]["offending"][:10]
    if off:
        d.p("First offending pairs (a tie or inversion against `correct`):")
        d.table(["task", "seed", "probe", "shipped(correct)", "shipped(probe)", "truth(probe)"],
                [[code(o['task']), str(o["seed"]), code(o['probe']),
                  _num(g, o["score_correct"]), _num(g, o["score_probe"]),
                  _num(g, o["truth_probe"])] for o in off])


def _joint(d: Doc, doc: dict[str, Any]) -> None:
    g = d.g
    j = doc["stages"]["joint"]
    d.h("Joint intervention (2x2)")
    d.p("The same scripted targets (" + ", ".join(code(t) for t in j["targets"])
           + ") on the same seeds at `L0` and "
           f"`L2`, each episode scored by the shipped scorer (divided by its scale "
           f"{_num(g, j['scale'])}) and by ground truth. At `L0`, "
           f"{j['l0_identical_pairs']} of {j['l0_payload_pairs']} target pairs submitted "
           "byte-identical payloads.")
    rows = []
    for lv in ("L0", "L2"):
        for sc in ("shipped", "ground_truth"):
            c = j["cells"][f"{lv}|{sc}"]
            rows.append(_joint_row(g, lv, sc, c))
    d.table(JOINT_HEADERS, rows)


JOINT_HEADERS = ["level", "scorer", "cell mean", "spread (max - min)", "distinct target means",
                 "submitting targets", "unscored"]


def _joint_row(g: NumberGuard, lv: str, sc: str, c: dict[str, Any]) -> list[str]:
    """Return one 2x2 cell as a table row; `unscored`: the episodes its mean leaves out (the
    shipped scorer's INVALID scores, or ground truth the valid scorer could not decide)."""
    unscored = c.get("truth_excluded", 0) if sc == "ground_truth" else c["invalid_scores"]
    return [code(lv), code(sc), _num(g, c["mean"]), _num(g, c["spread"]),
            str(c["distinct_target_means"]), str(c["submitting_targets"]), str(unscored)]


def _spectrum(d: Doc, doc: dict[str, Any]) -> None:
    g = d.g
    s = doc["stages"]["reliability"]
    d.h("Reliability spectrum (L2, ground truth)")
    d.p(f"{s['seeds']} seeds on each of the tasks "
           + ", ".join(code(t) for t in s["tasks"]) + " per scripted target (a store "
           "target: its recorded `L2` episodes); mean with "
           f"bootstrap CI, worst case, CVaR at alpha {_num(g, s['alpha'])}, Reliability at tau "
           f"{_num(g, s['tau'])}. Sorted by mean.")
    rows, figure_rows = [], []
    conf = s["rows"][0]["summary"]["mean"]["confidence"] if s["rows"] else None
    withheld = []  # a target of 1 or 2 episodes has no interval (stats.bootstrap): why
    for r in s["rows"]:
        m = r["summary"]
        iv = m["mean"]["interval"]
        if iv is None:
            withheld.append(f"{code(r['target'])} ({r.get('source', 'scripted')}): "
                            f"{m['mean'].get('interval_note') or 'no interval'}")
        rows.append([code(r['target']), r.get("source", "scripted"), str(r["n"]),
                     _num(g, m["mean"]["value"]),
                     "no interval" if iv is None else f"[{_num(g, iv[0])}, {_num(g, iv[1])}]",
                     _num(g, m["worst"]["value"]),
                     _num(g, m["cvar"]["value"]), _num(g, m["reliability"]["value"])])
        figure_rows.append(SpectrumRow(r["target"], tuple(r["quartiles"]),
                                       m["mean"]["value"], m["worst"]["value"],
                                       m["cvar"]["value"]))
    d.table(["target", "source", "n", "mean", f"{g.pct(conf)} CI", "worst", "CVaR",
             "Reliability"], rows)
    if withheld:
        d.bullets(withheld)
    d.figure(spectrum_chart(figure_rows, "Ground-truth F1 at L2 by target"),
             "Box: quartiles; dot: mean; cross: worst case; square: CVaR. Sorted by mean.")
    if s["worst_case_reorders"]:
        d.p("Ranking by worst case reorders the targets: " + _worst_chain(s) + ".")


def _worst_chain(s: dict[str, Any]) -> str:
    """Return the targets in worst-case order, '=' between equal worst cases and '>' else."""
    worst = {r["target"]: r["summary"]["worst"]["value"] for r in s["rows"]}
    order = s["order_by_worst"]
    # Targets with the same worst case are tied on it (listed by mean): never 'better'.
    return code(order[0]) + "".join(
        f" {'=' if worst[b] == worst[a] else '>'} {code(b)}"
        for a, b in pairwise(order))


def _ownership(d: Doc, doc: dict[str, Any]) -> None:
    g = d.g
    o = doc["stages"]["ownership"]
    d.h("Ownership")
    d.table(["level", "completeness", "model-owned decisions", "claimed but harness-owned"],
            [[code(lv), c["status"], ", ".join(code(x) for x in c["model_owned"]) or "none",
              ", ".join(code(x) for x in c["harness_owned_claims"]) or "none"]
             for lv, c in o["completeness"].items()])
    for lv, nd in o["non_degeneracy"].items():
        _non_degeneracy(d, lv, nd)
    cal = o["rule_calibration"]
    if cal.get("status") == "not probed":
        d.p(f"Rule calibration: not probed ({cal['reason']}).")
        return
    d.p(f"Rule calibration at {code(cal['level'])} (fixed decision rules): " + "; ".join(
        f"{code(r['rule'])} mean {_num(g, r['truth_mean'])}, worst {_num(g, r['truth_worst'])}"
        for r in cal["rules"]) + f". {cal['note'].capitalize()}.")


def _non_degeneracy(d: Doc, lv: str, nd: dict[str, Any]) -> None:
    g = d.g
    models = nd.get("model_targets", [])
    why = f" ({nd['reason']})" if nd.get("reason") else ""
    d.p(f"Non-degeneracy at {code(lv)}, per target (never pooled across targets): "
        f"{nd['status']}{why}.")
    if models:
        rows = []
        for t in models:
            for dec in t["decisions"]:
                means = dec["outcome_mean_by_action"]
                rows.append([code(t['target']), code(dec['decision']), str(dec["observations"]),
                             ", ".join(f"{k}: {v}" for k, v in dec["action_counts"].items())
                             or "none", ", ".join(f"{k}: {_num(g, v)}" for k, v in means.items())
                             or "n/a", dec["status"]])
        d.table(["model target", "decision", "observations", "action counts",
                 "mean truth by action", "non-degenerate"], rows)
    fixed = nd.get("fixed_rules", [])
    if fixed:
        d.p(f"Fixed rules at {code(lv)}: {nd['note']}.")
        d.table(["fixed rule", "source", "episodes", "action varies on", "action constant on"],
                [[code(t['target']), t["source"], str(t["episodes"]),
                  ", ".join(code(x['decision']) for x in t["decisions"] if x["action_varies"])
                  or "none",
                  ", ".join(code(x['decision']) for x in t["decisions"]
                            if x["observations"] and not x["action_varies"]) or "none"]
                 for t in fixed])


def _store(d: Doc, doc: dict[str, Any]) -> None:
    s = doc["card"]["store"]
    d.h("Store targets")
    conditions = ", ".join(code(c) for c in s["conditions"])
    d.p(f"Recorded episodes of {code(s['environment'])} under {conditions} read from the evidence "
        "store (campaigns " + ", ".join(code(c) for c in s["campaigns"]) + "), never rerun: "
        f"{s['episodes']} used, {s['excluded']} excluded (measurement failures and episodes "
        "without a ground-truth score are never scores). Model targets are the LLM targets; "
        "rule and scripted targets are fixed rules. A target recorded under several conditions "
        "is one row per condition, never pooled.")
    d.table(["store target", "campaign", "condition", "kind", "model", "episodes", "by level",
             "excluded"],
            [[code(t['target']), code(t['campaign']), code(t['condition']), t["kind"],
              code(t['model']) if t["model"] else "-", str(t["episodes"]),
              ", ".join(f"{code(lv)} {n}" for lv, n in t["episodes_by_level"].items()) or "none",
              ", ".join(f"{why}: {n}" for why, n in t["excluded"].items()) or "0"]
             for t in s["targets"]])


def _store_calibration(d: Doc, doc: dict[str, Any]) -> None:
    groups = doc["stages"]["store"].get("calibration") or []
    if not groups:
        return
    d.h("Rule calibration of the store targets")
    d.p("Per campaign and condition, the recorded fixed rules' ground truth on the (task, seed, "
        "repeat) units every rule has. Identical vectors: the condition is decision-invariant "
        "(it cannot tell the rules' decisions apart).")
    d.table(["campaign", "condition", "level", "shared units", "rule", "truth mean",
             "truth worst", "decision-invariant"],
            [[code(g['campaign']), code(g['condition']), code(g['level']),
              str(g["units"]), code(r['rule']), _num(d.g, r["truth_mean"]),
              _num(d.g, r["truth_worst"]), "yes" if g["decision_invariant"] else "no"]
             for g in groups for r in g["rules"]])


def _store_joint(d: Doc, doc: dict[str, Any]) -> None:
    g = d.g
    j = doc["stages"]["store"]["joint"]
    d.h("Joint intervention (2x2) of the store targets")
    if j.get("status") == "not probed":
        d.p(f"Not probed: {j['reason']}.")
        return
    by_field = ", ".join(f"{code(k)} {v} of {j['l0_model_payload_pairs']}"
                         for k, v in j["l0_model_identical_pairs_by_field"].items())
    d.p("Recorded episodes at `L0` and `L2` on the same tasks and seeds, scored by the "
        "recorded shipped scorer (divided by its scale "
        f"{_num(g, j['scale'])}) and ground truth. At `L0`, "
        f"{j['l0_model_identical_pairs']} of {j['l0_model_payload_pairs']} pairs of model-target "
        "payloads are byte-identical" + (f" (identical by field: {by_field})" if by_field
                                          else "") + ".")
    if not j["cells"]:
        return
    d.p("Targets: " + ", ".join(f"{code(t['target'])} ({t['units']} task-seed units)"
                               for t in j["targets"]) + ".")
    d.table(JOINT_HEADERS, [_joint_row(g, key.split("|")[0], key.split("|")[1], c)
                            for key, c in j["cells"].items()])


def render_audit_report(doc: dict[str, Any]) -> tuple[str, str]:
    """Return (markdown, html) for an audit.json document; raise if the guard refuses it."""
    g = NumberGuard(doc)
    d = Doc(g)
    title = f"Audit of {doc['audit']}"
    d.h(f"Audit of {prose(doc['audit'])}", 1)
    stages = doc["stages"]
    intro = f"Tool version {code(doc['tool_version'])}, analysis seed {doc['analysis_seed']}."
    if "replay" in stages:
        r = stages["replay"]
        # the stage's status summarises the columns' replay rows; not probed says which
        why = f": {r['reason']}" if r.get("reason") else ""
        intro += (f" Profile {code(doc['profile'])}. Replay: {r['status']} ({r['episodes']} "
                  f"episodes, {r['mismatches']} mismatches){why}.")
    if "target" in doc and "deviations" in doc["target"]:
        t = doc["target"]
        intro += (f" {t['entries']} entries, {t['cells']} probe cells, {t['deviations']} "
                  f"deviations from ground truth, {t['entries_without_oracle']} entries "
                  "without an oracle.")
    d.p(intro)
    _card(d, doc)
    if "store" in doc["card"]:
        _store(d, doc)
    _probes(d, doc)
    invalid_section(d, doc)
    truth_excluded_section(d, doc)
    for key, section, heading in (("joint", _joint, "Joint intervention (2x2)"),
                                  ("reliability", _spectrum, "Reliability spectrum"),
                                  ("ownership", _ownership, "Ownership")):
        stage = stages.get(key)
        if isinstance(stage, dict) and stage.get("status") == "not probed":
            d.h(heading)
            d.p(f"Not probed: {stage['reason']}.")  # a missing hook is never a pass
        elif stage is not None:
            section(d, doc)
        if key == "joint" and "store" in stages:
            _store_joint(d, doc)
            _store_calibration(d, doc)
    if "solvability" in stages:
        solvability_section(d, g, stages["solvability"])
    d.h("Digests")
    d.bullets([f"{code(k)}: {code(v)}" for k, v in doc["digests"].items()])
    g.check(*(t for b in d.blocks for t in b.texts()))
    return to_markdown(d.blocks), to_html(d.blocks, title)


def truth_excluded_section(d: Doc, doc: dict[str, Any]) -> None:
    """Add "Undecided ground truth" when any stage left cells out for an undecided truth."""
    ex = doc.get("truth_excluded") or {}
    if not ex.get("total"):
        return
    d.h("Undecided ground truth")
    d.p(f"Excluded: {ex['total']} cells, because {ex['why']}. They are left out of every "
        "ground-truth mean and comparison (never averaged as a failure).")
    d.bullets([f"{stage}: {n}" for stage, n in ex["by_stage"].items() if n])


def invalid_section(d: Doc, doc: dict[str, Any]) -> None:
    """Add "INVALID cells and why" (per probe battery and do-nothing run) when any cell is."""
    items = []
    for key, res in ((doc.get("stages") or {}).get("probes") or {}).items():
        for r in res.get("invalid_reasons", []):
            items.append(f"{code(res['scorer'])} ({key}): {r['cells']} × {prose(r['reason'])}")
    for k in (doc.get("target") or {}).get("scorers", []):
        for r in (k.get("empty_trajectory") or {}).get("invalid_reasons", []):
            items.append(f"{code(k['scorer'])} (empty trajectory): {r['cells']} × "
                         f"{prose(r['reason'])}")
    if items:
        d.h("INVALID cells and why")
        d.p("A cell the scorer could not score is INVALID: it is excluded from every mean and "
            "comparison, and the criterion cannot pass over it.")
        d.bullets(items)
