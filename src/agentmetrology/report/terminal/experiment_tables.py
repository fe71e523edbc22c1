"""Experiments on the terminal: progress per arm, the rule's power at the planned n and the
slack dose response. The documents are built by `experiment`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich import box
from rich.console import Console

from agentmetrology.records.verdict import INSUFFICIENT, n_counted
from agentmetrology.report.experiment_dose import (
    delta_text,
    no_interval_notes,
    p_side,
    shape_sentence,
)
from agentmetrology.report.numberguard import p_text
from agentmetrology.report.terminal.table_fit import Col, fit_table


def verdict_counts(cells: list[dict[str, Any]]) -> str:
    """Return the verdicts counted, each said with the pairs it rests on (`6 verdicts: 2
    confirmed (n = 20 paired seeds), 4 not confirmed (n = 20 paired seeds)`); the distinct
    verdicts alone did not say how many comparisons each one was."""
    said = Counter(str((c.get("rule") or {}).get("text", c["verdict"])) for c in cells)
    return (f"{len(cells)} verdicts: "
            + ", ".join(f"{k} {v}" for v, k in sorted(said.items())))


def print_power(console: Console, pw: dict[str, Any]) -> None:
    """Print the power of the frozen rule at the planned n, with its interval and size."""
    console.print(f"power of the rule at n = {pw['n']} for a standardized effect of "
                  f"{pw['effect']:g}: {pw['power']:.3f} [{pw['interval'][0]:.3f}, "
                  f"{pw['interval'][1]:.3f}] (lower bound: sign-flip at alpha/{pw['family']}, "
                  f"{pw['simulations']} seeded simulations; size {pw['size']:.3f})"
                  + ("" if pw["can_confirm"] else "; the rule can never confirm at this n"),
                  markup=False, emoji=False)


# Arm, level and agent name a row (never cut, the last to go); coverage is the measure.
# Quota deaths and skips tell the rules apart where coverage cannot, so they outlast `recorded`
# (whose n is then said under the table: a coverage mean is never printed without its n).
ARM_COLS = [Col("level", 9), Col("agent", 9), Col("arm", 10), Col("recorded", 2, True),
            Col("coverage", 8, True), Col("quota deaths", 6, True), Col("skips", 5, True),
            Col("eps w/ skip", 3, True)]


def print_arms(console: Console, rows: list[dict[str, Any]]) -> None:
    """Print per arm: episodes recorded of planned, coverage, quota deaths and skips."""
    cells = [[r["level"], r["agent"], r["arm"], f"{r['recorded']}/{r['planned']}",
              "n/a" if r["coverage"] is None else f"{r['coverage']:.3f}",
              str(r["quota_deaths"]), str(r["skips"]), str(r["episodes_with_skip"])]
             for r in rows]
    table = fit_table(console, "per arm", ARM_COLS, cells, full="agm experiment report",
                      markup=False)  # arm names like stress:squeeze:... are not emoji codes
    table.box = box.SIMPLE
    console.print(table)
    if "recorded" not in {str(c.header) for c in table.columns}:
        counts = {(r["recorded"], r["planned"]) for r in rows}
        said = ([f"coverage over n = {n_counted(counts.pop()[0], 'recorded episodes')} per arm "
                 f"(of {rows[0]['planned']} planned)"] if len(counts) == 1 else
                [f"coverage of {r['agent']} at {r['level']} in {r['arm']}: n = {r['recorded']} "
                 f"recorded of {r['planned']} planned" for r in rows])
        for line in said:
            console.print(line, markup=False, emoji=False)
    for r in rows:  # a mean over fewer episodes than were recorded says so
        if r["coverage_n"] < r["recorded"]:
            console.print(f"coverage of {r['agent']} at {r['level']} in {r['arm']}: over "
                          f"{r['coverage_n']} of {r['recorded']} recorded episodes ("
                          f"{r['recorded'] - r['coverage_n']} without a value, left out)",
                          markup=False, emoji=False)


# Target and slack name a row (never cut); delta and its verdict are the measure; the Holm p
# is what the verdict rests on beside the CI (without it, `+0.055 [0.009, 0.103] not
# confirmed` read as a contradiction at 80 columns), so it outlasts the rest; deaths and SKIPs
# tell the rules apart where delta cannot, so they outlast the unadjusted p.
DOSE_COLS = [Col("target", 10), Col("slack", 10, True), Col("delta [95% CI]", 9),
             Col("p", 3, True), Col("Holm p", 7, True), Col("verdict", 8),
             Col("deaths b/a", 6, True), Col("SKIPs b/a", 6, True)]


def _f(x: Any) -> str:
    return "n/a" if x is None else str(x) if isinstance(x, int) else f"{x:.3f}"


def _p(x: float | None) -> str:
    return p_side(p_text, x)


def _verdict(r: dict[str, Any]) -> str:
    """Return a dose row's verdict, withheld below the pairs its rule needs to confirm at all
    (a line under the table gives n, and the minimum: the cell stays narrow at 80 columns)."""
    return INSUFFICIENT if r.get("sufficient") is False else str(r["verdict"])


def withheld_notes(rows: list[dict[str, Any]]) -> list[str]:
    """Return one line per distinct (n, minimum) of the rows whose verdict is withheld."""
    below = dict.fromkeys((r["pairs"], r["minimum"], r["family_size"]) for r in rows
                          if r.get("sufficient") is False)
    return [f"{INSUFFICIENT}: n = {n_counted(n, 'paired seeds')}, and with a Holm family of "
            f"{k} the rule cannot confirm below {m} (an exact sign-flip p is at least 2/2^n); "
            "'not confirmed' would say nothing" for n, m, k in below]


def judged_notes(rows: list[dict[str, Any]]) -> list[str]:
    """Return one line per distinct n of the rows whose verdict stands: the narrow verdict
    cell does not say the pairs it rests on."""
    ns = dict.fromkeys(r["pairs"] for r in rows if r.get("sufficient") is not False)
    return [f"verdicts over n = {n_counted(n, 'paired seeds')}"
            + (" each" if len(ns) == 1 else ": " + ", ".join(
                f"{r['target']} at slack {r['slack']}" for r in rows
                if r.get("sufficient") is not False and r["pairs"] == n))
            for n in ns]


def print_dose(console: Console, dose: dict[str, Any], rule: str = "") -> None:
    """Print the slack dose response: delta per target and slack, the frozen rule's first
    clause (why a CI below 0 with Holm p < 0.05 is not confirmed), then its shape per level."""
    cells = [[r["target"], str(r["slack"]),
              delta_text(_f, r),
              _p(r["sign_flip_p"]), _p(r["p_holm"]), _verdict(r),
              f"{_f(r['baseline']['quota_deaths'])}/{_f(r['arm']['quota_deaths'])}",
              f"{_f(r['baseline']['skips'])}/{_f(r['arm']['skips'])}"] for r in dose["rows"]]
    title = f"slack dose response: delta = {dose['arm']} - {dose['baseline']} (b = baseline)"
    table = fit_table(console, title, DOSE_COLS, cells, full="report.md", markup=False)
    table.box = box.SIMPLE
    console.print(table)
    if rule:
        console.print(f"rule: {rule.split(';')[0]}", markup=False, emoji=False)
    for note in (judged_notes(dose["rows"]) + withheld_notes(dose["rows"])
                 + no_interval_notes(dose["rows"])):
        console.print(note, markup=False, emoji=False)
    for level in dose["shape"]:
        console.print(shape_sentence(dose, level, _f).replace("`", ""), markup=False,
                      emoji=False)
