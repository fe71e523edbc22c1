"""Report blocks for the `tau2` section of archive.json: the first screen and the details.

Formatting only: every number is a value of archive.json; identifiers are `code spans`.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.report import html as H
from agentmetrology.report.blocks import Doc, code

MAX_NAMED = 20  # tasks named in a sentence; archive.json lists them all


def _headline(h: dict[str, Any]) -> str:
    kind = h["code"]
    if kind == "all_passes_do_nothing_passable":
        return (f"**All {h['passes']} passes fall on tasks a do-nothing agent also passes** "
                f"({h['passable_tasks']} such tasks, by the domain's own evaluator on an empty "
                "trajectory): the pass count is no evidence that the agent did the work.")
    if kind == "unpriced_cost":
        return (f"The agent's cost is **unpriced**, not free ({h['reason']}); it is left out "
                "of cost comparisons.")
    if kind == "reported_disagrees":
        return (f"{h['findings']} reported number(s) disagree with the simulations beyond "
                "rounding (see *Recomputed vs reported*).")
    if kind == "tasks_never_run":
        return (f"{h['tasks']} planned task(s) never ran; they stay in the planned "
                "denominator.")
    return f"{h['episodes']} planned episode(s) have no grade; the bounds below show the range."


def first_screen(d: Doc, doc: dict[str, Any]) -> None:
    """Write the tau2 summary and its headline findings (nothing when not a tau2 file)."""
    t = doc.get("tau2")
    if t is None:
        return
    f, n, o, g = t["file"], t["denominators"], t["outcomes"], d.g
    d.h("tau2: what this number means")
    bounds = t["bounds"] or {}
    d.p(f"Agent {code(f['agent_model'])} on the {_named(f['domain'])} domain, user simulator "
        f"{_named(f['user_model'])} ({code(f['shape'])} results file). {o['pass']} of "
        f"{n['planned']} planned episodes pass: pass^1 {g.fmt(t['pass_1']['planned'])} over "
        f"planned episodes, between {g.fmt(bounds.get('lower'))} and "
        f"{g.fmt(bounds.get('upper'))} if every ungraded episode could go either way.")
    if t["headlines"]:
        d.bullets([_headline(h) for h in t["headlines"]])
    elif _cost_unknown(t["cost"]):
        # "the cost is priced" beside a negative or absent agent_cost said what was not read
        d.p("No first-screen finding: every planned episode ran and was graded and no reported "
            "number disagrees; some simulations record no usable cost (see *tau2 cost*).")
    else:
        d.p("No first-screen finding: every planned episode ran and was graded, the cost is "
            "priced, and no reported number disagrees.")


def _cost_unknown(c: dict[str, Any]) -> bool:
    """Return whether some simulation's agent or simulator cost could not be read."""
    return bool(c["applicable"] and (c["agent"]["missing"] or c["user_simulator"]["missing"]))


def details(d: Doc, doc: dict[str, Any]) -> None:
    """Write the tau2 detail sections (nothing when not a tau2 file)."""
    t = doc.get("tau2")
    if t is None:
        return
    for part in (_denominators, _terminations, _reward, _do_nothing, _cost, _reported):
        part(d, t)


def _denominators(d: Doc, t: dict[str, Any]) -> None:
    f, n = t["file"], t["denominators"]
    d.h("tau2 denominators", 3)
    source = ("the file's own task definitions" if f["definitions"] == "file" else
              f"task definitions from {code(f['definitions'])}, matched by domain and task id"
              if f["definitions"] else "no task definitions (none in the file, none shipped)")
    d.p(f"Planned = {f['planned_from']} x {f['trials']} trial(s); {source}. Domain from "
        f"{f['domain_from']}.")
    if outside := f.get("ran_not_in_domain"):
        # They are in the planned count, which the task set alone would not give.
        more = ", ..." if len(outside) > MAX_NAMED else ""
        d.p("Tasks ran that the task set does not hold ("
            + ", ".join(code(x) for x in outside[:MAX_NAMED]) + more
            + "): their simulations are counted in the planned episodes beside it.")
    vs = f.get("versus_shipped")
    if vs and vs["compared"]:
        differ = ", ".join(code(x) for x in vs["tasks"]) or "none"
        d.p(f"Against {code(vs['shipped'])}: {vs['differ']} of {vs['compared']} task "
            f"definitions differ in their evaluation criteria ({differ}); the do-nothing "
            "verdicts below use the file's own.")
    p1 = t["pass_1"]
    d.table(["denominator", "episodes", "pass^1"],
            [["planned (task set x trials)", n["planned"], p1["planned"]],
             ["simulations present", n["simulations_present"], p1["simulations_present"]],
             ["graded", n["graded"], p1["graded"]]],
            "The same passes over the three denominators")
    nr = t["never_ran"]
    if nr["planned_entries_absent"]:
        d.p(f"{nr['planned_entries_absent']} planned (task, trial) entries have no simulation; "
            f"{nr['tasks_never_run']} task(s) never ran at all: "
            + (", ".join(code(x) for x in nr["tasks"]) or "none") + ".")
    if len(t["pass_k"]) > 1:
        d.table(["k", "pass^k (planned, unresolved as failure)"],
                [[k + 1, v] for k, v in enumerate(t["pass_k"])])


def _terminations(d: Doc, t: dict[str, Any]) -> None:
    d.h("How the simulations ended", 3)
    d.table(["termination", "ended by", "class", "simulations", "pass", "fail", "ungraded",
             "reward 0 by rule"],
            [[code(r["termination"]), r["ended_by"], r["class"], r["simulations"], r["pass"],
              r["fail"], r["ungraded"], r["reward_by_rule"]] for r in t["terminations"]],
            "A cap or an agent failure gets reward 0 by the runner's rule, not by the task's "
            "checks; a measurement failure is ungraded")


def _reward(d: Doc, t: dict[str, Any]) -> None:
    r = t["reward"]
    d.h("What the rewards rest on", 3)
    d.table(["reward basis", "tasks"], [[code(b["basis"]), b["tasks"]] for b in r["basis"]])
    d.table(["outcome", "decided by", "episodes"],
            [[x["outcome"], code(x["decided_by"]), x["episodes"]] for x in r["decided_by"]],
            "A failure is decided by the basis components that scored below 1")
    a = r["action_checks"]
    d.p(f"Gold-action checks disagreeing with the reward, of {a['with_action_checks']} graded "
        "episodes with action checks: passes with an unmatched gold action "
        f"{a['pass_with_unmatched_actions_action_in_basis']} where ACTION is in the basis and "
        f"{a['pass_with_unmatched_actions_action_not_in_basis']} where it is not; failures "
        f"with every gold action matched {a['fail_with_all_actions_matched_action_in_basis']} "
        f"and {a['fail_with_all_actions_matched_action_not_in_basis']}.")
    nl = r["nl_assertions"]
    d.p(f"{nl['resting_on_nl_assertion']} of {nl['graded']} graded rewards rest on an "
        f"LLM-judged natural-language assertion (share {d.g.fmt(nl['share'])}); the judge's "
        f"verdicts are evidence, not ground truth. {nl['judged_outside_basis']} episodes were "
        f"judged outside the basis, and {nl['passes_with_unmet_nl_assertion_outside_basis']} "
        "passes have an assertion the judge found unmet.")


def _do_nothing(d: Doc, t: dict[str, Any]) -> None:
    dn = t["do_nothing"]
    if not _opened(d, "The do-nothing share", dn):
        return
    d.p(f"Evaluator: {code(dn['evaluator'])}, each task under its own criteria. "
        f"{dn['passable']['tasks']} of {dn['tasks']} tasks pass with an agent that does "
        f"nothing; {dn['not_probed']['tasks']} could not be probed. Pass rate on the tasks "
        f"where doing nothing fails: {d.g.fmt(dn['pass_rate_where_doing_nothing_fails'])}.")
    d.table(["tasks", "count", "episodes", "graded", "passes"],
            [[name.replace("_", " "), dn[name]["tasks"], dn[name]["episodes"],
              dn[name]["graded"], dn[name]["passes"]]
             for name in ("passable", "not_passable", "not_probed")],
            "Passes on do-nothing-passable tasks vs the rest")
    d.chart("Passes by do-nothing verdict", [
        H.Bar(name.replace("_", " "), float(dn[name]["passes"]), str(dn[name]["passes"]), col)
        for name, col in (("passable", "#9e9e9e"), ("not_passable", "#2e7d32"),
                          ("not_probed", "#6a1b9a"))])
    if dn["passable_tasks"]:
        d.note("Do-nothing-passable tasks: " + ", ".join(code(x) for x in dn["passable_tasks"])
               + ".")


def _opened(d: Doc, title: str, part: dict[str, Any]) -> bool:
    """Write a section's heading; return False (after saying why) when it does not apply."""
    d.h(title, 3)
    if not part["applicable"]:
        d.p(f"Not applicable: {part['reason']}.")
    return bool(part["applicable"])


def _named(value: str | None) -> str:
    """Return a name the file gave as a code span, or that it gave none (`None` read as one)."""
    return "not recorded" if value is None else code(value)

def _cost(d: Doc, t: dict[str, Any]) -> None:
    c = t["cost"]
    if not _opened(d, "tau2 cost: agent and user simulator apart", c):
        return
    d.table(["side", "simulations summed", "recorded total", "message sum",
             "simulations disagreeing"],
            [[side, c[key]["summed"], d.money(c[key]["total"]),
              d.money(c[key]["messages_total"]), c[key]["disagreeing_simulations"]]
             for side, key in (("agent", "agent"), ("user simulator", "user_simulator"))],
            f"Per-message costs checked against each simulation's totals, of the "
            f"{c['simulations']} simulations audited (one per task and trial)")
    missing = (c["agent"]["missing"], c["user_simulator"]["missing"])
    if any(missing):
        d.p(f"Simulations with no usable cost recorded: {missing[0]} agent, {missing[1]} user "
            "simulator (none, not a number, negative, or in a record kept ungraded as "
            "malformed). The totals and message sums above leave them out; an average they "
            "would enter (per simulation, per pass, the simulator's share) is not computed.")
    if c["user_simulator"].get("unpriced"):
        d.p(f"User-simulator cost 0 for the tokens used in {c['user_simulator']['unpriced']} "
            "simulation(s): unpriced, not free; the simulator's share and the totals per pass "
            "are not computed.")
    if c["unpriced"]:
        d.p(f"Agent cost unpriced for {c['unpriced_simulations']} simulation(s): "
            f"{c['unpriced_reason']}. Cost per pass is undefined.")
        return
    passes = f" (over {c['passes']} passes)" if c["agent_per_pass"] is not None else ""
    sims = (f" (over {c['simulations']} simulations)" if c["agent_per_simulation"] is not None
            else "")
    d.p(f"User-simulator share of the total: {d.g.fmt(c['user_share'])}. Agent cost per pass "
        f"{d.money(c['agent_per_pass'])}{passes}; agent and simulator per pass "
        f"{d.money(c['total_per_pass'])}; agent cost per simulation "
        f"{d.money(c['agent_per_simulation'])}{sims}.")


def _reported(d: Doc, t: dict[str, Any]) -> None:
    r = t["reported"]
    if not _opened(d, "Recomputed vs reported", r):
        return
    rows = []
    for row in r["rows"]:
        mine = row.get("recomputed", {}).get("planned", row.get("recomputed_planned"))
        # The claim and its rounding with significant digits: at 3 decimals a claim of 42.15%
        # read 0.421 and its tolerance 0.0005 read 0.001, twice what it is.
        rows.append([f"pass^{row['k']}", d.money(row["reported"]), mine, d.money(row["tolerance"]),
                     ", ".join(row.get("agrees_with", [])) or "-", row["finding"]])
    if rows:
        d.table(["number", "reported", "recomputed (planned)", "rounding", "agrees with",
                 "finding"], rows, f"Reported by {r['source']}")
    else:
        d.p(f"Reported by {r['source']}: no pass^k.")
    for row in r["rows"]:
        if "unsupported" in row:  # a finding, but not a disagreement with a recomputed number
            d.p(f"pass^{row['k']} is claimed without support: {row['unsupported']}.")
    if r.get("unreadable"):
        d.p("Claimed but not readable as numbers of their kind, so not compared: "
            + ", ".join(code(x) for x in r["unreadable"]) + ".")
    for key in ("passed", "total_tasks"):
        if key in r:
            d.p(f"{code(key)}: reported {r[key]['reported']}, recomputed "
                f"{r[key]['recomputed']}.")
    if "cost" in r:
        c = r["cost"]
        if not c["comparable"]:
            d.p(f"Reported cost {d.money(c['reported'])}: {c['reason']}.")
        else:
            d.p(f"Reported cost per trajectory {d.money(c['reported'])}; recomputed agent "
                f"{d.money(c['recomputed']['agent'])}, agent and simulator "
                f"{d.money(c['recomputed']['agent_and_user'])}.")
