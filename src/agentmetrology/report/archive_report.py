"""Render `report.md` and `report.html` from the archive.json dict, and nothing else.

No number is computed here: every number printed is a value of archive.json, formatted at the
report's precision, and every text block passes the number guard before anything is written.
Identifiers (cells, tasks, episode ids, digests) are printed as `code spans`.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.report import html as H
from agentmetrology.report.blocks import Block, Doc, code, to_html, to_markdown
from agentmetrology.report.numberguard import NumberGuard
from agentmetrology.report.tau2_report import details as tau2_details
from agentmetrology.report.tau2_report import first_screen as tau2_first_screen


def _header(d: Doc, doc: dict[str, Any]) -> None:
    a = doc["archive"]
    d.h(f"Archive audit: {code(a['source'])}", 1)
    d.p(f"Format {code(a['format'])}: {a['episodes']} episodes over {a['tasks']} tasks in "
        f"{a['cells']} cell(s) and {a['runs']} run(s); {a['spans']} trace spans. "
        f"Produced by {code('agentmetrology ' + doc['package']['version'])}.")
    rows = [[i["role"], code(i["name"]), i["bytes"], code(i["sha256"])] for i in doc["inputs"]]
    if rows:
        d.table(["input", "file", "bytes", "sha256"], rows)
    load = doc["load"]
    notes = load.get("notes") or {}
    if notes.get("log_directory"):
        d.p(f"A directory of Inspect logs: {notes['logs_imported']} of {notes['logs_found']} "
            "`.eval` log(s) imported; a log that could not be read is listed as a load problem.")
    if load["problem_count"]:
        shown = len(load["problems"])
        d.p(f"{load['problem_count']} load problem(s) ({shown} listed); an unreadable item was "
            "skipped, a readable but malformed episode is kept ungraded (`malformed_record`):")
        d.blocks.append(Block("list", items=[code(p) for p in load["problems"]]))


def _coverage(d: Doc, doc: dict[str, Any]) -> None:
    cov, g = doc["coverage"], d.g
    o = cov["overall"]
    d.h("Coverage: what was graded")
    d.p(f"Of {o['planned']} planned episodes, {o['graded']} were graded (graded fraction "
        f"{g.fmt(o['graded_fraction'])}); {o['counts']['ungraded']} were stored without a grade "
        f"and {o['counts']['invalid_replay']} are invalid replays. Passes: {o['counts']['pass']}; "
        f"failures: {o['counts']['fail']}.")
    if o["bounds"]:
        d.p(f"The stored score {g.fmt(o['score_stored'])} counts every unresolved episode as a "
            f"failure. With the ungraded share {g.fmt(o['ungraded_share'])}, the score over all "
            f"planned episodes lies between {g.fmt(o['bounds']['lower'])} and "
            f"{g.fmt(o['bounds']['upper'])}: worst-case identification bounds, not a confidence "
            f"interval. Over graded episodes only the score is {g.fmt(o['score_graded_only'])}.")
    d.table(["cell", "planned", "graded", "valid-recovered", "pass", "fail", "ungraded",
             "invalid replay", "stored score", "lower", "upper"],
            [[code(c["cell"]), c["planned"], c["graded"], c["valid_recovered"],
              c["counts"]["pass"], c["counts"]["fail"], c["counts"]["ungraded"],
              c["counts"]["invalid_replay"], c["score_stored"],
              (c["bounds"] or {}).get("lower"), (c["bounds"] or {}).get("upper")]
             for c in cov["cells"]], "Denominators and bounds per cell")
    d.chart("Outcomes", [
        H.Bar(k, float(o["counts"][k]), str(o["counts"][k]), col)
        for k, col in (("pass", "#2e7d32"), ("fail", "#c62828"), ("ungraded", "#9e9e9e"),
                       ("invalid_replay", "#6a1b9a"))])
    d.note(cov["recovery"]["reason"] + ".")
    _unresolved(d, cov)
    _pairs(d, cov)


def _unresolved(d: Doc, cov: dict[str, Any]) -> None:
    if not cov["unresolved_episodes"]:
        return
    d.h("Episodes without a usable grade", 3)
    # A code of the archive's own (a JSONL `reason`) is its own meaning, and a detail is the
    # archive's text (a line's reason_detail, a log's error): code spans, where a Markdown
    # viewer renders no tag or link of theirs.
    d.table(["reason", "meaning"], [[code(k), code(v) if v == k else v]
                                    for k, v in cov["reason_codes"].items()])
    d.table(["episode", "task", "trial", "outcome", "reason", "stored score", "detail"],
            [[code(e["episode_id"]), code(e["task"]), e["trial"], e["outcome"],
              code(e["reason"]), e["stored_score"], code(e["detail"]) if e["detail"] else ""]
             for e in cov["unresolved_episodes"]])


def _pairs(d: Doc, cov: dict[str, Any]) -> None:
    if cov["differences"]:
        d.h("Differences between cells", 3)
        d.table(["A", "B", "stored difference", "lower", "upper", "sign identified"],
                [[code(x["a"]), code(x["b"]), x["delta_stored"], x["lower"], x["upper"],
                  x["sign_identified"]] for x in cov["differences"]])
    if cov["ties"]:
        d.p("Tie thresholds: the pass fraction `q_A` among A's unresolved episodes needed to tie "
            "B, as `q_A* = intercept + slope * q_B`; outside `[0, 1]` no tie is possible.")
        d.table(["A", "B", "intercept", "slope", "`q_A*` at `q_B = 0`", "`q_A*` at `q_B = 1`",
                 "tie possible"],
                [[code(t["a"]), code(t["b"]), t["intercept"], t["slope"], t["at_qb0"],
                  t["at_qb1"], t["possible"]] for t in cov["ties"]])


def _passk(d: Doc, doc: dict[str, Any]) -> None:
    d.h("pass^k, with unresolved episodes shown")
    for cell in doc["pass_hat_k"]:
        rows = cell["rows"]
        stored = ", ".join(d.g.fmt(r["stored"]) for r in rows)
        if not rows:
            d.p(f"{code(cell['cell'])}: pass^k is undefined (no task has a trial).")
            continue
        d.p(f"{code(cell['cell'])}: {cell['tasks']} tasks; pass^k as stored for k up to "
            f"{rows[-1]['k']}: {stored}. {cell['unresolved_episodes']} unresolved episode(s) in "
            f"{cell['tasks_with_unresolved']} task(s) count as failures there; counting them as "
            "passes gives the upper column.")
        if cell.get("k_rows_omitted"):
            d.note(f"pass^k is defined up to k = {cell['k_defined']}; only k up to "
                   f"{rows[-1]['k']} is listed ({cell['k_rows_omitted']} values of k omitted).")
        d.table(["k", "as stored", "upper"], [[r["k"], r["stored"], r["upper"]] for r in rows])
        d.chart(f"pass^k as stored: {cell['cell']}",
                [H.Bar(f"k = {r['k']}", r["stored"] or 0.0, d.g.fmt(r["stored"])) for r in rows],
                max_value=1.0)


def _tasks(d: Doc, doc: dict[str, Any]) -> None:
    t = doc["tasks"]
    c = t["counts"]
    d.h("Tasks with mixed outcomes across trials")
    d.p(f"{c['mixed']} of {c['tasks']} tasks (counted per cell) have more than one outcome "
        "across trials "
        f"({c['pass_and_fail']} both pass and fail); {c['always_pass']} always pass, "
        f"{c['always_fail']} always fail, {c['with_unresolved']} have an unresolved trial. "
        "Outcome letters in trial order: P pass, F fail, U ungraded, I invalid replay.")
    if t["mixed"]:
        d.table(["cell", "task", "trials", "pass", "fail", "ungraded", "invalid", "outcomes"],
                [[code(m["cell"]), code(m["task"]), m["trials"], m["pass"], m["fail"],
                  m["ungraded"], m["invalid_replay"], code(m["outcomes"])] for m in t["mixed"]])


def _cost(d: Doc, doc: dict[str, Any]) -> None:
    c, g = doc["cost"], d.g
    d.h("Cost: one charge per billable event")
    if not c["applicable"]:
        d.p(f"Not applicable: {c['reason']}.")
        return
    unit = "cost" if c["weight"] == "cost" else "tokens (input + output)"
    d.p(f"{c['model_spans']} model-call spans of {c['spans']} spans; weights are {unit}. "
        f"{c['billable_events']} billable events, {c['duplicated_events']} of them copied by "
        f"outer spans ({c['extra_copies']} extra copies). All-span total over root-span total: "
        f"{g.fmt(c['ratio_all_to_root'])}; all-span total over corrected total: "
        f"{g.fmt(c['ratio_all_to_corrected'])}; cost-weighted multiplicity "
        f"`C_all / C*` = {g.fmt(c['multiplicity'])}.")
    d.table(["total", "spans", "input", "output", "cached", "cost"],
            [[name, t["spans"], _tokens(d, t, "input"), _tokens(d, t, "output"), t["cached"],
              d.money(t["cost"])]
             for name, t in (("all spans", c["all_spans"]), ("root spans", c["root_spans"]),
                             ("corrected", c["corrected"]))])
    unknown = c["all_spans"].get("usage_unknown") or 0
    if unknown:
        d.p(f"{unknown} model-call span(s) have no token counts (a request that timed out, an "
            "event without usage): the token totals marked ≥ are lower bounds"
            + (f", and the ratios and the multiplicity weigh only the billable events whose "
               f"tokens are known ({c.get('weight_unknown', 0)} are not)"
               if c["weight"] == "tokens" else "") + ".")
    a = c["alignment"]
    d.p(f"Alignment of outer spans: {a['by_response_id']} by response id, {a['by_usage']} by "
        f"usage, {a['by_usage_sum']} by summed usage; {a['unresolved']} unresolved (share "
        f"{g.fmt(a['unresolved_share'])} of outer spans, {g.fmt(a['unresolved_weight_share'])} "
        f"of the all-span weight), kept as billable events. Orphan spans: {a['orphans']}; "
        f"repeated span ids: {a['duplicate_span_ids']}. Spans sharing an attempt id (kept "
        f"apart): {c['shared_attempt_ids']}.")
    d.table(["run", "all-span cost", "corrected cost", "all-span input", "corrected input",
             "all / corrected", "multiplicity"],
            [[code(r["run"]), d.money(r["all_spans"]["cost"]), d.money(r["corrected"]["cost"]),
              _tokens(d, r["all_spans"], "input"), _tokens(d, r["corrected"], "input"),
              r["ratio_all_to_corrected"],
              r["multiplicity"]] for r in c["runs"]], "Per run")
    _pareto(d, c["pareto"])


def _tokens(d: Doc, t: dict[str, Any], key: str) -> Any:
    """Return a token total as shown: `≥ N` when some span had no counts (a lower bound)."""
    return f"≥ {d.cell(t[key])}" if t.get("usage_unknown") else t[key]


def _pareto(d: Doc, p: dict[str, Any]) -> None:
    if not p["applicable"]:
        d.note(f"Pareto frontier: {p['reason']}.")
        return
    d.table(["run", "accuracy (graded)", "unresolved (excluded)", "stored cost",
             "corrected cost", "frontier (stored)", "frontier (corrected)"],
            [[code(r["run"]), r["accuracy"], r.get("unresolved_excluded", 0),
              d.money(r["cost_stored"]), d.money(r["cost_corrected"]),
              r["frontier_stored"], r["frontier_corrected"]] for r in p["rows"]],
            "Cost–accuracy frontier on stored vs corrected costs; accuracy counts graded "
            "episodes only")
    enter = ", ".join(code(x) for x in p["entering"]) or "none"
    leave = ", ".join(code(x) for x in p["leaving"]) or "none"
    d.p(f"Rows entering the frontier on corrected costs: {enter}. Rows leaving it: {leave}.")
    if p.get("excluded_usage_unknown"):
        d.p("Left out of the frontier, some of their spans having no token counts (their "
            "totals are lower bounds): "
            + ", ".join(code(x) for x in p["excluded_usage_unknown"]) + ".")


def _provenance(d: Doc, doc: dict[str, Any]) -> None:
    p = doc["provenance"]
    d.h("Action provenance")
    labels = ", ".join(f"{code(k)}: {v}" for k, v in p["actor_labels"].items()) or "none"
    d.p(f"Actor labels on archived actions: {labels}.")
    if not p["applicable"]:
        d.p(f"Alignment not applicable: {p['reason']}.")
        return
    d.p(f"{p['episodes_checked']} episodes have a raw model log: {p['executed_calls']} executed "
        f"calls against {p['archived_actions']} archived actions; {p['matched']} matched in order "
        f"({p['ambiguous_matched']} of them among identical repeated actions). "
        f"{p['candidates']} archived actions match no executed call: candidate grader "
        f"provenance. {p['ambiguous_candidates']} more are unmatched copies of repeated "
        f"identical actions (which copy is extra is ambiguous). Episodes with either kind: "
        f"{p['episodes_with_candidates']}. Executed calls missing from the archive: "
        f"{p['unmatched_executed']}.")
    if p["episodes"]:
        d.table(["episode", "task", "candidates", "ambiguous"],
                [[code(e["episode_id"]), code(e["task"]),
                  ", ".join(code(f"{c['index']}:{c['name']}") for c in e["candidates"]),
                  ", ".join(code(f"{c['index']}:{c['name']}") for c in e["ambiguous"])]
                 for e in p["episodes"]])


def _replay(d: Doc, doc: dict[str, Any]) -> None:
    r = doc["replay"]
    if not r["declared"]:
        return
    d.h("Replay gate")
    d.p(f"{r['declared']} episodes declare a replay; {r['invalid']} fail the gate and count as "
        "invalid replay, not as failures.")
    d.table(["reason", "episodes"], [[code(k), v] for k, v in r["reasons"].items()])


def build_blocks(doc: dict[str, Any], guard: NumberGuard) -> list[Block]:
    """Return the report's blocks for an archive.json dict (formatting only)."""
    d = Doc(guard)
    d.evidence_banner(doc.get("evidence"))
    for section in (_header, tau2_first_screen, _coverage, tau2_details, _passk, _tasks, _cost,
                    _provenance, _replay):
        section(d, doc)
    return d.blocks


def render_archive_report(doc: dict[str, Any], precision: int = 3) -> tuple[str, str]:
    """Return (report.md, report.html) for an archive.json dict; refuses unguarded numbers."""
    guard = NumberGuard(doc, precision=precision)
    blocks = build_blocks(doc, guard)
    guard.check(*(t for b in blocks for t in b.texts()))
    title = f"Archive audit: {doc['archive']['source']}"
    return to_markdown(blocks), to_html(blocks, title)


def _regrade_blocks(d: Doc, doc: dict[str, Any]) -> None:
    s = doc["store"]
    d.h(f"Re-grade: {code(s['source'])}", 1)
    d.p(f"{s['recorded']} recorded episodes of {s['planned']} planned, in campaign(s) "
        f"{', '.join(code(c) for c in s['campaigns'])}, were scored again with the current "
        f"scorers from their stored submissions; {s['infrastructure_failures']} infrastructure "
        f"failures are left out of the comparison. Produced by "
        f"{code('agentmetrology ' + doc['package']['version'])}.")
    rows = []
    for name, sc in doc["scorers"].items():
        t, r = sc["transitions"], sc["rank"]
        rows.append([code(name), code(", ".join(sc["stored_versions"])),
                     code(sc["current_version"]), sc["compared"], sc["score_changed"],
                     sc["status_changed"], t["n01"], t["n10"], t["net_count"], t["flip_fraction"],
                     r["strict_reversals"], r["pairs"]])
    d.table(["scorer", "stored version", "current version", "compared", "score changed",
             "status changed", "n01", "n10", "net (n01 - n10)", "flip fraction", "rank reversals",
             "pairs"], rows, "Stored vs current assessments")
    d.note(f"Versions: {code(doc['version_note'])}.")


def render_regrade_report(doc: dict[str, Any], precision: int = 3) -> str:
    """Return report.md for a regrade.json dict; refuses unguarded numbers."""
    guard = NumberGuard(doc, precision=precision)
    d = Doc(guard)
    d.evidence_banner(doc.get("evidence"))
    _regrade_blocks(d, doc)
    guard.check(*(t for b in d.blocks for t in b.texts()))
    return to_markdown(d.blocks)
