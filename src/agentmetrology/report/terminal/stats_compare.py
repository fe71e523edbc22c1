"""How `agm stats compare` prints its document: one two-column table per comparison of the
family, then eta squared, the exclusions, and what the sign-flip test and McNemar each test.

The document itself is built by `agentmetrology.results.build_comparison`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.text import Text

from agentmetrology.records.verdict import counted_as
from agentmetrology.report.terminal.stats_format import (
    Column,
    exclusion_lines,
    fitted_table,
    fmt,
    fmt_ci,
    fmt_ci_within,
    fmt_p,
    print_lines,
)
from agentmetrology.results import describe
from agentmetrology.results.compare_verdict import UNCONFIRMED
from agentmetrology.stats.equivalence import INSUFFICIENT, SIGN_FLIP_MINIMUM


def _tests_note(doc: Mapping[str, Any]) -> str:
    """Return the one-line explanation of what the sign-flip test and McNemar each test."""
    tau = doc["result"]["tau"]
    if doc["cluster"]:
        flip = f"clustered paired differences (whole {doc['cluster']} clusters flip sign)"
    else:
        flip = "paired differences, pair by pair"
    return (
        f"sign-flip tests {flip}; McNemar tests unclustered pass/fail flips "
        f"(value >= {tau:g}), so the two can disagree; the exact sign test counts "
        "unclustered pairs by the sign of B - A."
    )


def _unconfirmed(c: Mapping[str, Any]) -> str | None:
    """Return the note for a comparison whose verdict is "different, but not confirmed".

    The verdict is the document's (results.compare_verdict): the label reads the bootstrap's
    95% interval (the spec's rule), which is liberal with few units (8 pairs can exclude 0
    where the exact sign-flip test gives 0.0625); the note says which a decision should wait for.
    """
    if c["verdict"]["verdict"] != UNCONFIRMED:
        return None
    return (f"{c['value']}: {c['b']} - {c['a']} reads 'different' from the bootstrap interval, "
            f"but the sign-flip test does not reject (Holm p {fmt_p(c['p_holm'])}): the "
            "difference is not confirmed; more units would tell")


def _label(eq: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    """Return the equivalence label, with the count it lacks when it is withheld."""
    if eq["label"] != INSUFFICIENT:
        return str(eq["label"])
    n = r["n_units"]
    return (f"{INSUFFICIENT} (n = {n} {counted_as(n, r['unit'] + 's')}, needs "
            f"{eq.get('minimum', SIGN_FLIP_MINIMUM)})")


def _ci(est: Mapping[str, Any], pct: str) -> str:
    """Return an estimate's `95% CI [lo, hi]`, or that it has none (the `intervals` row says
    why: fewer than 3 pairs or clusters)."""
    return f"{pct} CI {fmt_ci(est['interval'])}" if est.get("interval") else "(no interval)"


def _comparison_rows(doc: Mapping[str, Any], c: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Return the (statistic, value) rows of one comparison."""
    r, p = c["result"], c["pairs"]
    eq, sf, cd, fl, mc = (
        r[k] for k in ("equivalence", "sign_flip", "cliffs_delta", "flips", "mcnemar")
    )
    st = c["sign_test"]
    pct = f"{doc['parameters']['confidence'] * 100:g}%"
    kind = "exact" if sf["exact"] else "Monte-Carlo"
    rows = [
        ("verdict", str(c["verdict"]["text"])),  # the document's, decided in results
        ("pairs",
         f"{p['complete']} complete, {p['incomplete']} incomplete dropped "
         f"({p['only_a']} only in A, {p['only_b']} only in B), "
         f"{p['dropped_excluded']} dropped because a row was excluded "
         f"({p['excluded_a']} in A, {p['excluded_b']} in B)"),
        ("units", f"{r['n_units']} {r['unit']}{'' if r['n_units'] == 1 else 's'}"),
        ("scale", c["scale"]["text"].split(": ", 1)[1]),
        ("mean difference", f"{fmt(r['difference']['value'])} {_ci(r['difference'], pct)}"),
        ("equivalence",
         f"{_label(eq, r)} (margin {eq['margin']:g}; "
         + (f"90% CI {fmt_ci_within(eq['interval90'], eq['margin'])}, "
            f"95% CI {fmt_ci(eq['interval'])})"
            if eq.get("interval") else "no interval)")),
        ("sign-flip p",
         f"{fmt_p(sf['p_value'])} ({kind}, {sf['permutations']} sign vectors"
         f"{', clustered by ' + doc['cluster'] if doc['cluster'] else ''})"),
        ("Holm p", f"{fmt_p(c['p_holm'])} (family of {doc['holm']['family']}; "
                   f"{'rejects' if c['holm_rejects'] else 'does not reject'} at 0.05)"),
        ("exact sign test p",
         f"{fmt_p(st['p_value'])} ({st['n_up']} up, {st['n_down']} down, {st['ties']} ties)"),
        ("Cliff's delta", f"{fmt(cd['value'])} {_ci(cd, pct)}"),
        (f"flips @ {r['tau']:g}",
         f"{fl['n01']} fail->pass, {fl['n10']} pass->fail of {fl['n']}; "
         f"net {fmt(fl['net'])}, fraction {fmt(fl['value'])}"),
        ("McNemar p", f"{fmt_p(mc['p_value'])} (pass/fail flips, unclustered)"),
    ]
    if r["difference"].get("interval_note"):
        rows.insert(3, ("intervals", r["difference"]["interval_note"]))
    ex = c["excess_flip"]
    if ex is not None:
        rows.append(("excess flip rate",
                     ex["why"] or f"{fmt(ex['value'])} {_ci(ex, pct)} "
                                  f"(conditions {fmt(ex['condition_rate'])}, reruns "
                                  f"{fmt(ex['rerun_rate'])} via {ex['rerun_group']})"
                                  + (f"; {ex['interval_note']}" if ex.get("interval_note")
                                     else "")))
    return rows


def print_comparison(doc: Mapping[str, Any], console: Console) -> None:
    """Render each comparison as a two-column table, then eta squared, exclusions and notes."""
    columns = [
        Column("statistic", kind="name", justify="left", priority=12),
        Column("value", kind="name", justify="left"),  # sentences: wrap at spaces
    ]
    for c in doc["comparisons"]:
        rows = [[Text(name), Text(text)] for name, text in _comparison_rows(doc, c)]
        table, _ = fitted_table(console, columns, rows,
                                title=Text(f"{c['value']}: {c['b']} - {c['a']} (paired)"),
                                show_header=False)
        console.print(table)
    lines = [note for c in doc["comparisons"] if (note := _unconfirmed(c)) is not None]
    lines += [_tests_note(doc), f"rows read {doc['rows']['read']}, {describe(doc['excluded'])}"]
    if doc["scales"]:
        lines.append(doc["scales"])
    for v in doc["variance"] or []:
        sh = v["shares"]
        lines.append(
            f"eta squared of {v['value']} ({v['factors']['a']} x {v['factors']['b']}, "
            f"{v['blocks']} blocks): " + (v["why"] if sh is None else
                                          ", ".join(f"{k} {fmt(x)}" for k, x in sh.items())))
    lines += exclusion_lines(doc) + _group_exclusions(doc)
    print_lines(console, lines)


def _group_exclusions(doc: Mapping[str, Any]) -> list[str]:
    """Return the rows excluded per group, for A and every B of every value (each once)."""
    several = len({c["value"] for c in doc["comparisons"]}) > 1
    lines: list[str] = []
    for c in doc["comparisons"]:
        prefix = f"{c['value']}: " if several else ""
        for side in ("a", "b"):
            line = f"{prefix}{side.upper()} ({c[side]}): {describe(c['excluded_by_group'][side])}"
            if line not in lines:
                lines.append(line)
    return lines
