"""The validity card on the terminal: one fitted table per level, then why each row that was
not probed was not, the store's targets, the solvability and INVALID probe lines.

Row names and scorer names are never cut; the audit's documents are built by `audit`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from agentmetrology.audit.card import (
    basis_text,
    cell_text,
    optional_rows,
    row_cell,
    scorer_code_text,
)
from agentmetrology.audit.solvability import solvability_lines
from agentmetrology.report.terminal.table_fit import Col, fit_table

CARD_ROWS = ("scorer_kind", "criterion_sensitivity", "ownership_completeness",
             "non_degeneracy", "replay")
REASON_CHARS = 160  # a reason line on the terminal (audit.json has the whole text)


def cut_reason(text: str) -> str:
    """Return a reason on one line, cut to REASON_CHARS with `…` saying that it was cut."""
    text = " ".join(text.split())
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS] + "…"


def card_tables(con: Console, card: dict[str, Any]) -> list[Any]:
    """Return the card as one fitted table per level: row names and scorer names never cut."""
    configs: list[dict[str, Any]] = card["configurations"]
    levels = list(dict.fromkeys(c["level"] for c in configs))
    tables = []
    for level in levels:
        group = [c for c in configs if c["level"] == level]
        title = f"Validity card: {card['benchmark']}" + (f" at {level}" if level else "")
        # The row names and the scorer names stay whole; verdicts and claims fold at spaces.
        cols = [Col("row", priority=9)] + [
            Col(str(c["scorer"]), priority=8 - i, wrap=True) for i, c in enumerate(group)]
        rows = [[key.replace("_", " "), *(cell_text(row_cell(c, key)) for c in group)]
                for key in (*CARD_ROWS, *optional_rows(group))]
        rows.append(["licensed claim", *(str(c["licensed_claim"]) for c in group)])
        tables.append(fit_table(con, title, cols, rows, markup=False))  # names, not markup
    return tables


def not_probed_lines(card: dict[str, Any]) -> list[str]:
    """Return one line per card row that was not probed, with its reason (scorers that share a
    reason on a row are named together)."""
    reasons: dict[tuple[str, str], list[str]] = {}
    for c in card["configurations"]:
        for key in (*CARD_ROWS, *optional_rows([c])):
            row = c["rows"].get(key) or {}
            if row.get("status") != "not probed":
                continue
            why = cut_reason(str((row.get("evidence") or {}).get("reason")
                                 or "no reason recorded"))
            level = f" at {c['level']}" if c.get("level") else ""
            reasons.setdefault((key.replace("_", " ") + level, why), []).append(str(c["scorer"]))
    return [f"not probed: {row} ({', '.join(scorers)}): {why}"
            for (row, why), scorers in reasons.items()]


def claim_lines(card: dict[str, Any]) -> list[str]:
    """Return one line per claim licensed without a check bearing on it: the rows it rests on
    and the checks not probed (configurations of a level sharing the sentence are named
    together). A claim every such check backs is the table's alone; the reports say all."""
    said: dict[tuple[str, str], list[str]] = {}
    for c in card["configurations"]:
        basis = c.get("claim_basis")
        if basis and basis["not_checked"]:
            text = basis_text(basis)
            level = f" at {c['level']}" if c.get("level") else ""
            said.setdefault((level, text), []).append(str(c["scorer"]))
    return [f"claim{level} ({', '.join(scorers)}): {text}"
            for (level, text), scorers in said.items()]


def print_card(console: Console, card: dict[str, Any]) -> None:
    """Print the card's tables, what each claim licensed without a check rests on, then why
    each row that was not probed was not."""
    for table in card_tables(console, card):
        console.print(table)
    code = scorer_code_text(card)
    if code:
        console.print(code, markup=False)
    for line in [*claim_lines(card), *not_probed_lines(card)]:
        console.print(line, markup=False)


def _criterion_said(doc: dict[str, Any], battery: dict[str, Any]) -> str:
    """Return the criterion verdict the card prints for a battery's scorer (its withheld
    verdict below the minimum), or the battery's status when the card has no such scorer."""
    for c in (doc.get("card") or {}).get("configurations", []):
        row = c["rows"].get("criterion_sensitivity")
        if c.get("scorer") == battery["scorer"] and row:
            return cell_text(row)
    return str(battery["status"])


def invalid_lines(doc: dict[str, Any]) -> list[str]:
    """Return why probe cells were INVALID, per scorer: counts and the most common reasons."""
    stages = doc.get("stages") or {}
    batteries = stages.get("probes") or {}
    lines = []
    for res in batteries.values():
        bad = res.get("cells_invalid", 0)
        if not bad:
            continue
        total = len(res.get("cells", []))
        lines.append(f"criterion sensitivity {_criterion_said(doc, res)} for {res['scorer']}: "
                     f"{bad} of {total} probe cells INVALID")
        for r in res.get("invalid_reasons", []):
            lines.append(f"  {r['cells']} × {cut_reason(str(r['reason']))}")
    return lines


def print_store(con: Console, doc: dict[str, Any]) -> None:
    """Print the store's targets: kind, episodes used and excluded, non-degeneracy per level."""
    summary = doc["card"].get("store")
    if not summary:
        return
    nondeg = doc["stages"]["ownership"]["non_degeneracy"]
    levels = list(nondeg)
    verdicts = {(t["target"], lv): t["status"] for lv in levels
                for t in nondeg[lv]["model_targets"] + nondeg[lv]["fixed_rules"]
                if t["source"] == "store"}
    cols = [Col("store target", priority=9), Col("kind", priority=7),
            Col("episodes", priority=8), Col("excluded", priority=8, wrap=True),
            *(Col(f"non-degeneracy {lv}", priority=6, wrap=True) for lv in levels)]
    rows = []
    for t in summary["targets"]:
        excluded = ", ".join(f"{why}: {n}" for why, n in t["excluded"].items()) or "0"
        rows.append([t["target"], t["kind"], str(t["episodes"]), excluded,
                     *(verdicts.get((t["target"], lv), "-") for lv in levels)])
    con.print(fit_table(con, f"Store targets ({', '.join(summary['conditions'])} episodes, "
                             "read from the store, never rerun)", cols, rows))
    for g in doc["stages"]["store"].get("calibration", []):
        verdict = ("decision-invariant: identical outcomes, the condition cannot tell the "
                   "rules apart" if g["decision_invariant"] else "rules differ")
        con.print(f"rule calibration at {g['level']} under {g['condition']} ({g['campaign']}, "
                  f"{len(g['rules'])} rules, {g['units']} shared units): {verdict}",
                  markup=False)
    for lv in levels:
        if not nondeg[lv]["model_targets"]:
            con.print(f"non-degeneracy at {lv}: not probed ({nondeg[lv]['reason']})",
                      markup=False)
    for c in doc["card"]["configurations"]:
        cell = c["rows"]["non_degeneracy"]
        ev = cell["evidence"]
        if "model_payload_pairs" in ev and c["scorer_kind"] == "outcome":
            con.print(f"non-degeneracy at {c['level']} (no model-owned decision): "
                      f"{ev['byte_identical_pairs']} of {ev['model_payload_pairs']} model-target "
                      f"payload pairs byte-identical: {cell['status']}", markup=False)


def print_audit(console: Console, doc: dict[str, Any], paths: dict[str, Path]) -> None:
    """Print an environment's (or a registered target's) audit: the card, the store's targets,
    the solvability and INVALID lines, the deviations and where the artifacts were written."""
    print_card(console, doc["card"])
    print_store(console, doc)
    stages = doc.get("stages")
    if isinstance(stages, dict) and "solvability" in stages:
        for line in solvability_lines(stages["solvability"]):
            console.print(line, markup=False)
    for line in invalid_lines(doc):
        console.print(line, markup=False)
    target = doc.get("target")
    if isinstance(target, dict) and "deviations" in target:
        console.print(f"cells: {target['cells']}, deviations from ground truth: "
                      f"{target['deviations']}", markup=False)
        without = target.get("without_oracle") or {}
        if without:  # the report counts them too: the terminal does not drop them in silence
            names = ", ".join(list(without)[:5]) + (", ..." if len(without) > 5 else "")
            console.print(f"entries without an oracle (not probed): {len(without)} of "
                          f"{target['entries']} ({names}; audit.json says why)", markup=False)
    console.print(f"audit.json: {paths['audit']}")
    console.print(f"HTML report: {paths['html'].resolve()}")
