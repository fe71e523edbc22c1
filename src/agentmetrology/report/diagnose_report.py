"""Render report.md and report.html from diagnose.json (formatting only; no new numbers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentmetrology.records.verdict import n_counted
from agentmetrology.report.blocks import Doc, code, prose, to_html, to_markdown
from agentmetrology.report.diagnose_svg import GapRow, gap_chart, msr_vrg_chart
from agentmetrology.report.numberguard import NumberGuard
from agentmetrology.stats import MIN_CLUSTERS
from agentmetrology.stats.bootstrap import distinct_resamples
from agentmetrology.stats.equivalence import INSUFFICIENT


def said(g: dict[str, Any], with_n: bool = True) -> str:
    """Return a group's reading as printed: with its n (unless a column beside it says n),
    always with it when withheld, and flagged when thresholds move it."""
    v = g.get("verdict") or {}
    text = v.get("text") or g["reading"] if with_n or not v.get("sufficient") else g["reading"]
    unstable = g.get("stability") == "unstable across thresholds"
    return f"{text}, unstable across thresholds" if unstable else text


def policy(g: dict[str, Any]) -> str:
    """Return a group's policy as printed (its target, with environment and level when the
    store has several; a diagnose.json written before the label existed gives the target)."""
    return str(g.get("policy") or g["target"])


def unmeasured_why(pairs: dict[str, Any]) -> str:
    """Return why the unmeasured pairs were excluded, each reason with its count ("" if none)."""
    return "; ".join(f"{why} ({n})" for why, n in (pairs.get("unmeasured_reasons") or {}).items())


def kappa_text(result: dict[str, Any], fmt: Callable[[float], str]) -> str:
    """Return Cohen's kappa as printed: the number, or n/a and why (nothing was rated, or both
    raters gave one and the same label throughout, where kappa is 0/0)."""
    if result.get("kappa") is not None:
        return fmt(result["kappa"])
    return "n/a (n = 0)" if not result.get("n") else "n/a (one label throughout)"


def agreement_interval(nat: dict[str, Any], fmt: Callable[[float], str]) -> str:
    """Return a judge's task-cluster interval of agreement with the native reward as printed:
    `[lo, hi]`, or that there is none and why (fewer than 3 tasks), or a dash."""
    iv = nat.get("interval")
    if iv:
        return f"[{fmt(iv[0])}, {fmt(iv[1])}]"
    if nat.get("interval_note"):
        return (f"no interval (n = {n_counted(int(nat.get('tasks') or 0), 'tasks')}, needs "
                f"{MIN_CLUSTERS})")
    return "—"


def judge_tokens(a: dict[str, Any]) -> str:
    """Return a judge's token totals in words: the known part as a lower bound when some
    attempt's counts are unknown (diagnose.judge), never that part as the total."""
    known = (f"{a.get('input_tokens_known', a['input_tokens'])} input and "
             f"{a.get('output_tokens_known', a['output_tokens'])} output tokens")
    unknown = a.get("tokens_unknown") or 0
    if not unknown:
        return known
    return f"at least {known} ({unknown} attempt(s) with unknown token counts)"


def judge_originals(ja: dict[str, Any]) -> str | None:
    """Return how many planned original episodes the judges saw, were skipped (and why) and
    lay beyond --judge-episodes; None for a diagnose.json written before they were counted."""
    o = ja.get("originals")
    if not isinstance(o, dict):
        return None
    why = "; ".join(f"{r} ({n})" for r, n in (o.get("skipped_reasons") or {}).items())
    return (f"{o['judged']} of {o['planned']} planned original episodes judged, "
            f"{o['skipped']} skipped{f' ({why})' if why else ''}, {o['beyond_limit']} beyond "
            "--judge-episodes (not looked at)")


def _first_screen(d: Doc, doc: dict[str, Any]) -> None:
    d.h(f"Diagnose: {code(doc['store'])}", 1)
    p = doc["pairs"]
    d.p(f"{n_counted(p['complete'], 'complete pairs')} of "
        f"{p['total']} (half-finished {p['half_finished']}, "
        f"unmeasured {p['unmeasured']}{', excluded: ' + why if (why := unmeasured_why(p)) else ''}"
        "). Each pair is one administration and the same "
        "administration under a mutation; the verifier is the environment's shipped scorer, "
        "ground truth its valid scorer.")
    rows = []
    for key, by_mut in doc["readings"].items():
        # env|target|level: a target named with a `|` must not split into a fourth field
        env, rest = key.split("|", 1)
        target, level = rest.rsplit("|", 1)
        groups = {m: doc["groups"][f"{key}|{m}"] for m in by_mut}
        ns = {g.get("tasks") for g in groups.values()}
        one = len(ns) == 1  # one n for the row: said once, in its own column
        readings = {m: said(g, with_n=not one) for m, g in groups.items()}
        rows.append([code(target), code(env), prose(level), next(iter(ns)) if one else "varies",
                     "; ".join(f"{prose(m)}: {r}" for m, r in sorted(readings.items()))])
    d.table(["policy", "environment", "level", "n (tasks)", "reading per mutation"], rows,
            "Which reading holds, per policy")
    pc = doc["positive_control"]
    d.p(f"Positive control (misleading): {pc['status']}. {pc['why']}.")
    warning = doc["gap_only_ranking"]["warning"]
    if warning:
        d.note(f"Warning: {warning}.")


# Said under every table or figure where an interval is withheld (stats.cluster says why).
# No number but the minimum: the number guard takes every other one from diagnose.json.
NO_INTERVAL = (f"no interval: fewer than {MIN_CLUSTERS} tasks, whose task-cluster bootstrap "
               f"has at most {distinct_resamples(MIN_CLUSTERS - 1)}; diagnose.json says why "
               "(`interval_note`)")


def withheld_intervals(doc: dict[str, Any]) -> bool:
    """Return True when some group's interval was withheld for too few tasks."""
    return any((g.get(k) or {}).get("interval_note") for g in doc["groups"].values()
               for k in ("vrg", "rescored_gap", "excess_flip_rate"))


def _of_pairs(text: str, used: int, complete: int, what: str) -> str:
    """Return a cell's number with the pairs it rests on when it leaves some complete pairs out
    (an aggregate says what it excluded)."""
    return text if used >= complete else f"{text} ({used} of {complete} pairs; {what})"


def _groups(d: Doc, doc: dict[str, Any]) -> None:
    d.h("Metrics per policy and mutation")
    rows = []
    for g in doc["groups"].values():
        eq = ((g.get("paired") or {}).get("equivalence") or {}).get("label", "n/a")
        if eq == INSUFFICIENT:  # the statistics give no interval, so no label, below 3 tasks
            eq = f"insufficient (n = {n_counted(int(g.get('tasks') or 0), 'tasks')})"
        n, resc = g["complete"], g.get("rescored_gap")
        rows.append([code(policy(g)), code(g["mutation"]), n, d.estimate(g.get("vrg")),
                     "n/a" if not resc else _of_pairs(
                         d.estimate(resc), n - g["rescored_excluded"], n,
                         "the others' rescoring was not measurable"),
                     g.get("msr"), g.get("mtr"), g.get("behaviour_changed"),
                     "n/a" if g.get("ptd") is None else _of_pairs(
                         d.g.fmt(g["ptd"]), g["ptd_pairs"], n, "the others report no P"),
                     d.estimate(g.get("excess_flip_rate")), eq, said(g)])
    d.table(["policy", "mutation", "pairs", "VRG [CI]", "rescored gap [CI]", "MSR", "MTR",
             "behaviour changed", "PTD", "excess flips [CI]", "interval label (unadjusted)",
             "reading"], rows,
            f"tau {d.g.fmt(doc['tau'])}, margin ±{d.g.fmt(doc['margin'])}; MTR is n/a when "
            "no original passes; excess flips: pass/fail flips under the mutation minus flips "
            "between identical reruns (n/a without a repeat control)"
            + (f"; {NO_INTERVAL}" if withheld_intervals(doc) else ""))
    notes = [f"{code(policy(g))} under {code(g['mutation'])}: {said(g)}: {g['why']}"
             for g in doc["groups"].values()]
    d.bullets(notes)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{code(k) if k else '(unnamed)'} ({v})" for k, v in counts.items())


def pooling_lines(doc: dict[str, Any]) -> list[str]:
    """Return, per group that pools more than one base condition or campaign, what it pools."""
    out = []
    for g in doc["groups"].values():
        pool = g.get("pooled") or {}
        bases, camps = pool.get("bases") or {}, pool.get("campaigns") or {}
        if len(bases) > 1 or len(camps) > 1:
            out.append(f"{code(policy(g))} under {code(g['mutation'])}: base conditions "
                       f"{_counts(bases)}; campaigns {_counts(camps)}")
    return out


def _pooling(d: Doc, doc: dict[str, Any]) -> None:
    d.h("What each comparison pools")
    lines = pooling_lines(doc)
    d.p("Each pair compares a mutated administration with its own original only: the same "
        "campaign, target, task, seed, level, repeat and base condition (`clean` or a stress "
        "condition), so the base condition's own effect cancels within the pair. A row pools "
        "the complete pairs of every base condition and campaign of its (environment, policy, "
        "level, mutation); tasks stay the bootstrap's clusters, so a task's pairs under several "
        "bases or campaigns weigh as one task. "
        + ("Rows that pool more than one base condition or campaign (complete pairs in "
           "brackets):" if lines else "Every row here rests on one base condition and one "
           "campaign."))
    if lines:
        d.bullets(lines)


def _mark(value: Any, why_not: str | None = None) -> str:
    # a predicate whose test was not run says so and why, never "n/a" as if a number were
    # missing, and never "yes" beside a test that was not run
    if value is None and why_not:
        return why_not
    return "n/a" if value is None else "yes" if value else "no"


def _predicates(d: Doc, doc: dict[str, Any]) -> None:
    d.h("Why each reading: its predicates")
    rows = []
    for g in doc["groups"].values():
        p, holm = g.get("predicates") or {}, (g.get("paired") or {}).get("holm") or {}
        why_not = g.get("untested") or {}
        rows.append([code(policy(g)), code(g["mutation"]), g.get("tasks"),
                     _mark(p.get("different"), why_not.get("different")),
                     holm.get("difference"),
                     _mark(p.get("equivalent"), why_not.get("equivalent")),
                     holm.get("equivalence"),
                     _mark(p.get("rescoring_closes")), _mark(p.get("behaviour_changed")),
                     _mark(p.get("fails_both")), _mark(p.get("loses_passes")),
                     said(g, with_n=False)])
    d.table(["policy", "mutation", "tasks", "different", "Holm p", "equivalent", "Holm p",
             "rescoring closes", "behaviour changed", "fails both (MSR 0)",
             f"loses passes (MTR < 1 - {d.g.fmt(doc['margin'])})", "reading"], rows,
            "A reading is chosen from these predicates only (docs/diagnose.md); n/a: the "
            "number does not exist; a Holm p of n/a: the group is outside the family")
    h = doc["holm"]
    if not h["size"]:
        d.p(f"Multiplicity: no group was tested, so none was Holm-adjusted; the family would be "
            f"{h['family']}.")
        return
    d.p(f"Multiplicity: the difference and equivalence p-values are Holm-adjusted over one "
        f"family of {n_counted(h['size'], 'tests')} each, at {d.g.fmt(h['alpha'])}: "
        f"{h['family']}.")


def _sweep(d: Doc, doc: dict[str, Any]) -> None:
    t = doc["thresholds"]
    d.h("Readings across pass thresholds")
    taus = [repr(x) for x in t["sweep"]]
    rows = [[code(policy(g)), code(g["mutation"]), g.get("tasks"),
             *[f"{(g.get('sweep') or {}).get(x, {}).get('reading', 'n/a')} (MSR "
               f"{d.g.fmt((g.get('sweep') or {}).get(x, {}).get('msr'))})" for x in taus],
             g.get("stability", "n/a")] for g in doc["groups"].values()]
    d.table(["policy", "mutation", "tasks", *[f"tau {x}" for x in taus], "stability"], rows,
            f"the reading above uses tau {d.g.fmt(t['tau'])}; a reading that changes across "
            "the sweep is unstable across thresholds")


def _figures(d: Doc, doc: dict[str, Any]) -> None:
    groups = [g for g in doc["groups"].values() if g.get("vrg")]
    rows = []
    for g in groups:
        v, r = g["vrg"], g.get("rescored_gap")
        rows.append(GapRow(f"{policy(g)} / {g['mutation']}", v["value"],
                           tuple(v["interval"]) if v.get("interval") else None,
                           None if r is None else r["value"],
                           tuple(r["interval"]) if r and r.get("interval") else None))
    d.figure(gap_chart(rows, "Gap before (red) and after (blue) rescoring"),
             "Dots: mean gap; lines: task-cluster bootstrap intervals."
             + (f" A dot without a line has {NO_INTERVAL}." if withheld_intervals(doc) else ""))
    pts = [(f"{policy(g)} / {g['mutation']}", g["vrg"]["value"], g["msr"]) for g in groups]
    d.figure(msr_vrg_chart(pts, "MSR against VRG"),
             "A small gap with MSR 0 is a policy that fails in both conditions, not a robust "
             "one.")


def _judges(d: Doc, doc: dict[str, Any]) -> None:
    ja = doc.get("judge_audit")
    if not ja:
        return
    d.h("Fixed-trajectory judge audit")
    d.p(f"{ja['episodes']} saved original trajectories shown to each judge in the views "
        f"{', '.join(code(v) for v in ja['views'])}, {ja['calls']} calls per view; "
        f"{ja['unknown_cells']} of {ja['cells']} calls gave no usable verdict (UNKNOWN, "
        "excluded). Disagreement is the share of episodes whose majority verdict in a view "
        "differs from the original view's; the identical repeat is the baseline.")
    counted = judge_originals(ja)
    if counted:  # a skipped original (no episode, a measurement failure) is said, never hidden
        d.p(f"Originals: {counted}.")
    shown = ja.get("shown")
    if shown:
        d.p("What the judge was shown, in every view: " + "; ".join(shown["parts"]) + ". "
            f"{ja.get('insufficient_cells', 0)} of {ja['cells']} calls answered INSUFFICIENT "
            "(counted apart: they neither pass nor fail an episode, and do not vote).")
    rows = []
    for name, j in ja["judges"].items():
        v, nat = j["views"], j["with_native_reward"]
        rows.append([code(name), j["episodes"],
                     (v["original"].get("verdicts") or {}).get("INSUFFICIENT"),
                     v["repeat"]["disagreement"],
                     v["alias"]["disagreement"], v["alias"].get("excess_over_repeat"),
                     v["format"]["disagreement"], v["format"].get("excess_over_repeat"),
                     nat["raw_agreement"], agreement_interval(nat, d.g.fmt),
                     kappa_text(nat, d.g.fmt)])
    d.table(["judge", "episodes", "insufficient (original)", "repeat", "alias",
             "alias − repeat", "format", "format − repeat", "agreement with native reward",
             "task-cluster interval", "kappa"], rows)
    for name, a in (ja.get("billable_attempts") or {}).items():
        cost = "unknown (a price or token count is missing)" if a["cost"] is None \
            else d.g.fmt(a["cost"])
        d.p(f"Judge {code(name)} took {a['attempts']} billable attempt(s) ({a['failed']} "
            f"failed), {judge_tokens(a)}; "
            f"cost {cost}. Each attempt is listed in diagnose.json.")
    kept = ja.get("recorded_in_store") or {}
    if kept:
        d.p(f"The judges' requests kept in the store as grader calls: {kept['recorded']}"
            + (f"; not kept: {kept['not_recorded']} ({kept['reason']})" if kept.get("reason")
               else " (sealed in its hash chain; a grader's cost is never an agent's)") + ".")
    if ja.get("between_judges"):
        b = ja["between_judges"]
        d.p(f"Between the two judges: raw agreement {d.g.fmt(b['raw_agreement'])}"
            + f", kappa {kappa_text(b, d.g.fmt)}.")


def render_diagnose_report(doc: dict[str, Any]) -> tuple[str, str]:
    """Return (report.md, report.html) for diagnose.json; refuses unguarded numbers."""
    guard = NumberGuard(doc)
    d = Doc(guard)
    d.evidence_banner(doc.get("evidence"))
    _first_screen(d, doc)
    if doc["groups"]:
        _groups(d, doc)
        _pooling(d, doc)
        _predicates(d, doc)
        _sweep(d, doc)
        _figures(d, doc)
    _judges(d, doc)
    guard.check(*(t for b in d.blocks for t in b.texts()))
    return to_markdown(d.blocks), to_html(d.blocks, f"Diagnose: {doc['store']}")
