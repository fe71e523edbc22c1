"""Diagnose on the terminal: per policy and mutation the gaps, MSR and reading with its n,
the pair counts, the positive control and the LLM-judge audit. The document is built by
`diagnose`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from agentmetrology.report.diagnose_report import (
    agreement_interval,
    judge_originals,
    judge_tokens,
    kappa_text,
    policy,
    pooling_lines,
    said,
    unmeasured_why,
)
from agentmetrology.report.money import money
from agentmetrology.report.terminal.glossary import glossary_line
from agentmetrology.report.terminal.table_fit import Col, fit_table


def _three(x: float) -> str:
    """Return a number as every number on this summary is printed (3 decimals)."""
    return f"{x:.3f}"


def _share(view: dict[str, Any]) -> str:
    """Return a view's disagreement share, or n/a with why (no episode to compare)."""
    d = view.get("disagreement")
    return "n/a (n = 0 episodes with a verdict in both views)" if d is None else _three(d)


def print_diagnose(console: Console, doc: dict[str, Any], store: Path, out: Path) -> None:
    """Print the groups' table, the pair counts, the controls and the judge audit's lines."""
    rows = [[policy(g), g["mutation"], str(g["complete"]),
             "n/a" if not g.get("vrg") else f"{g['vrg']['value']:.3f}",
             "n/a" if not g.get("rescored_gap") else f"{g['rescored_gap']['value']:.3f}",
             "n/a" if g.get("msr") is None else f"{g['msr']:.3f}", said(g)]
            for g in doc["groups"].values()]
    # the reading column is the verdict's text: never a reading without its n
    cols = [Col("policy", 9), Col("mutation", 9), Col("pairs", 4, True), Col("VRG", 8, True),
            Col("rescored", 7, True), Col("MSR", 6, True), Col("reading (n)", 9, wrap=True)]
    table = fit_table(console, f"Diagnose {store}", cols, rows)
    console.print(table)
    console.print(glossary_line(str(c.header) for c in table.columns), markup=False)
    if doc.get("scorers"):
        console.print(scorer_line(doc), markup=False)
    pairs = doc["pairs"]
    console.print(f"pairs: {pairs['complete']} complete of {pairs['total']}; half-finished "
                  f"{pairs['half_finished']}, unmeasured {pairs['unmeasured']} (counted, never "
                  "scored)", markup=False)
    if unmeasured_why(pairs):
        console.print(f"unmeasured pairs excluded: {unmeasured_why(pairs)}", markup=False)
    pools = pooling_lines(doc)
    if pools:  # a row that pools several base conditions or campaigns says so (docs/diagnose.md)
        console.print(f"pooled: {len(pools)} of {len(doc['groups'])} rows pool pairs over "
                      "several base conditions or campaigns, each pair against its own "
                      "original (report: 'What each comparison pools')", markup=False)
    pc = doc["positive_control"]
    console.print(f"positive control (misleading): {pc['status']}", markup=False)
    ja = doc.get("judge_audit") or {}
    if ja.get("unknown_cells"):
        top = next(iter(ja["unknown_reasons"]), "")
        console.print(f"judge calls without a verdict (UNKNOWN, excluded): {ja['unknown_cells']} "
                      f"of {ja['cells']}; most common: {top}", markup=False)
    if ja:
        _judge_lines(console, ja)
    if doc["gap_only_ranking"]["warning"]:
        console.print(f"warning: {doc['gap_only_ranking']['warning']}", markup=False)
    console.print(f"report: {(out / 'report.html').resolve()}", markup=False)


def scorer_line(doc: dict[str, Any]) -> str:
    """Return which scorer S is per environment: the table's gaps and MSR are the shipped
    scorer's, not ground truth's, which a reader comparing them with `campaign status` (ground
    truth first) could not tell from the screen."""
    parts = []
    for env, sc in doc["scorers"].items():
        scale = sc.get("shipped_scale") or 1.0
        shipped = sc["shipped"] if scale == 1.0 else f"{sc['shipped']} / {scale:g}"
        parts.append(f"{env}: {shipped}" + (f", ground truth {sc['truth']} in diagnose.json"
                                            if sc.get("truth") else ""))
    return "S: the shipped scorer on a 0-1 scale (" + "; ".join(parts) + ")"


def _judge_lines(console: Console, ja: dict[str, Any]) -> None:
    """Print what the judge was shown, then per judge its verdicts, view disagreement,
    agreement with the native reward and what its calls cost."""
    console.print("judge shown: task statement, success criteria, tools, trajectory as "
                  "recorded; INSUFFICIENT allowed (counted apart, never a verdict)",
                  markup=False)
    counted = judge_originals(ja)
    if counted:
        console.print(f"judge originals: {counted}", markup=False)
    spent = ja.get("billable_attempts") or {}
    for name, j in (ja.get("judges") or {}).items():
        v, nat = j["views"], j["with_native_reward"]
        counts = v["original"]["verdicts"]
        console.print(f"judge {name}: original view PASS {counts['PASS']}, FAIL "
                      f"{counts['FAIL']}, INSUFFICIENT {counts['INSUFFICIENT']}, UNKNOWN "
                      f"{counts['UNKNOWN']}", markup=False)
        console.print(f"judge {name}: disagreement with its own original view: " + ", ".join(
            f"{view} {_share(v[view])}" for view in ("repeat", "alias", "format")),
            markup=False)
        shown = agreement_interval(nat, _three)
        agree = "n/a" if nat["raw_agreement"] is None else _three(nat["raw_agreement"])
        console.print(f"judge {name}: agreement with the native reward {agree}"
                      f"{'' if shown == '—' else ' ' + shown} "
                      f"(n = {nat['n']}), kappa {kappa_text(nat, _three)}", markup=False)
        if name in spent:
            a = spent[name]
            cost = "unknown" if a["cost"] is None else money(a["cost"])
            console.print(f"judge {name}: {a['attempts']} billable attempt(s), {a['failed']} "
                          f"failed, {judge_tokens(a)}, cost "
                          f"{cost}", markup=False)
    console.print(in_store_line(ja.get("recorded_in_store") or {}), markup=False)


def in_store_line(kept: dict[str, Any]) -> str:
    """Return where the judges' requests were kept: the store's grader calls, or why not."""
    if kept.get("reason"):
        return (f"judge requests: {kept['recorded']} kept in the store, "
                f"{kept['not_recorded']} not ({kept['reason']})")
    verdicts = kept.get("verdicts")
    answers = "" if verdicts is None else (
        f"; {verdicts} answers kept (grader verdicts: agm view STORE, /graders)")
    return (f"judge requests: {kept.get('recorded', 0)} kept in the store (grader calls, "
            f"never an agent's cost; agm campaign status sums them apart){answers}")
