"""The dose table and the sentence on its shape, for report.md/html and the terminal.

Formatting only: every number comes from experiment.json's `dose` section, and the sentence
states what the section's predicates found (docs/experiments.md, "The slack dose response").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from agentmetrology.experiment.plan import ALPHA
from agentmetrology.records.verdict import INSUFFICIENT, n_counted
from agentmetrology.report.blocks import Doc, code

Fmt = Callable[[Any], str]


def signed(fmt: Fmt, x: float | None) -> str:
    """Return a delta with its sign (`+0.091`, `-0.133`)."""
    return "n/a" if x is None else ("+" if x >= 0 else "") + fmt(x)


def ci_end(fmt: Fmt, x: float) -> str:
    """Return an interval end as `fmt` prints it, or, where that prints a nonzero end as 0.000,
    with the digits that keep its sign: the rule confirms only a CI above 0, and `[0.000, ...]`
    read the same beside "confirmed" (0.0004) as beside "not confirmed" (-0.0004)."""
    text = fmt(x)
    if x == 0 or text.strip("-0.") != "":
        return text
    sig = f"{x:.4g}"  # 0.0004123, -0.0004123: plain down to 1e-4
    if "e" not in sig:
        return sig
    # below 1e-4: three significant digits (as a tiny p prints), or the sign at least
    return f"{x:.{2 - math.floor(math.log10(x))}f}" if x > 0 else "-" + text.lstrip("-")


def p_side(text: Callable[[float], str], p: float | None) -> str:
    """Return a p-value as `text` prints it, or, where that prints a p below alpha as alpha
    (0.0499 as 0.050 beside "confirmed"), with the digits that keep it below."""
    if p is None:
        return "n/a"
    said = text(p)
    if not p < ALPHA <= float(said):
        return said
    sig = f"{p:.4g}"  # the report's significant digits (the number guard accepts them)
    return sig if float(sig) < ALPHA else repr(p)


def interval_text(fmt: Fmt, iv: list[float]) -> str:
    """Return `[lo, hi]`, each end on the side of 0 it lies (`ci_end`)."""
    return f"[{ci_end(fmt, iv[0])}, {ci_end(fmt, iv[1])}]"


def delta_text(fmt: Fmt, r: dict[str, Any]) -> str:
    """Return a dose row's delta with its interval, `(no interval)` where the statistics
    withheld it (fewer than 3 pairs: `interval_note` says why), or the delta alone."""
    iv = r["interval"]
    if iv:
        return f"{signed(fmt, r['delta'])} {interval_text(fmt, iv)}"
    return signed(fmt, r["delta"]) + (" (no interval)" if r.get("interval_note") else "")


def no_interval_notes(rows: list[dict[str, Any] | None]) -> list[str]:
    """Return each distinct reason a row or estimate has no interval (`interval_note`: fewer
    than 3 units, stats.bootstrap), once."""
    return list(dict.fromkeys(r["interval_note"] for r in rows if r and r.get("interval_note")))


def said_why(rows: list[dict[str, Any] | None]) -> str:
    """Return those reasons as sentences for a caption (' No interval: ...'), or ''."""
    return "".join(f" {note[:1].upper()}{note[1:]}." for note in no_interval_notes(rows))


def row_verdict(r: dict[str, Any]) -> str:
    """Return a dose row's verdict as printed, with the pairs it rests on: withheld below the
    pairs its rule needs to confirm at all, where "not confirmed" would say nothing."""
    if r.get("sufficient") is False:
        return f"{INSUFFICIENT} (n = {r['pairs']}, needs {r['minimum']})"
    return f"{r['verdict']} (n = {n_counted(r['pairs'], 'paired seeds')})"


def _list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _too_few(rows: list[dict[str, Any]]) -> str:
    """Return the pairs the rows below the rule's minimum have and need, as the rows say them
    (`n = 4 paired seeds where the rule needs 8 to confirm one`, or per target)."""
    few = [r for r in rows if r.get("sufficient") is False]
    counts = {(r["pairs"], r["minimum"]) for r in few}
    if len(counts) == 1:
        n, need = counts.pop()
        return f"n = {n} paired seeds where the rule needs {need} to confirm one"
    return ("too few paired seeds to confirm one: "
            + "; ".join(f"{code(r['target'])} n = {r['pairs']}, needs {r['minimum']}"
                        for r in few))


def shape_sentence(dose: dict[str, Any], level: str, fmt: Fmt) -> str:
    """Return one paragraph on the dose response's shape at a level, read off its predicates."""
    sh = dose["shape"][level]
    rows = [r for r in dose["rows"] if r["level"] == level]
    lo, hi = sh["lowest"], sh["highest"]
    zero = next(x for x in dose["invariance"] if x["level"] == level and x["slack"] == lo)
    if sh["forced_at_lowest"] is None:
        first = (f"at slack {lo} whether every choice is forced is not checked (decision "
                 "invariance compares the targets' per-seed coverage, and this plan has one "
                 "target)")
    elif sh["forced_at_lowest"]:
        first = (f"at slack {lo} every choice is forced (every target gives the same per-seed "
                 "coverage in both arms)")
    else:
        # equal on every seed in both arms: a pair equal in one arm only is not (a union of
        # the arms listed all three pairs of 3 targets beside "2 distinct vectors")
        checked = [v for v in (zero["baseline"], zero["arm"]) if v]
        pairs = set.intersection(*({tuple(p) for p in v["indistinguishable"]} for v in checked))
        same = sorted(f"{code(a)} = {code(b)}" for a, b in pairs)
        distinct = max(v["distinct_vectors"] for v in (zero["baseline"], zero["arm"]) if v)
        first = (f"at slack {lo} not every choice is forced ({distinct} distinct per-seed "
                 "coverage vectors among the targets"
                 + (f"; {_list(same)} on every seed" if same else "") + ")")
    binding = [k for k, b in zip(sh["slacks"], sh["binds"], strict=True) if b]
    where = (f"the squeeze binds (a delta confirmed) at slack {_list([str(k) for k in binding])}"
             if binding else "no delta is confirmed at any slack")
    last = (f"at slack {hi} it still binds" if sh["binds_at_highest"]
            else f"at slack {hi} nothing binds (no delta confirmed)"
            if sh["binds_at_highest"] is False
            else f"at slack {hi} whether anything binds is undetermined (no delta confirmed, "
                 f"and {_too_few([r for r in rows if r['slack'] == hi])})")
    falling = []
    for target, down in sh["delta_non_increasing"].items():
        ds = [signed(fmt, r["delta"]) for r in sorted(rows, key=lambda r: r["slack"])
              if r["target"] == target]
        falling.append(f"{code(target)} {', '.join(ds)}"
                       + ("" if down else " (not non-increasing)" if down is False
                          else " (a slack without delta)"))
    verdict = ("undetermined whether an inverted U" if sh["inverted_u"] is None
               else "an inverted U" if sh["inverted_u"] else "not an inverted U")
    ns = sorted({r["pairs"] for r in rows})
    n = (f"n = {n_counted(ns[0], 'paired seeds')}" if len(ns) == 1
         else f"n = {ns[0]} to {ns[-1]} paired seeds")
    return (f"Shape, by these numbers ({n} per delta): {verdict} of decision relevance. "
            f"{first[0].upper()}"
            f"{first[1:]}; {where}; {last}. Delta by slack: {'; '.join(falling)}.")


def dose_section(d: Doc, doc: dict[str, Any]) -> None:
    """Add the dose table, the invariance per slack and the shape to a report."""
    dose = doc["dose"]
    g = d.g
    d.h("Slack dose response")
    d.p(f"delta = {code(dose['arm'])} − {code(dose['baseline'])} coverage at each slack, "
        "paired by seed; Holm over the slacks and scorers of one target and level.")
    d.table(["target", "level", "slack", "delta [95% CI]", "sign-flip p", "Holm p",
             "verdict", "coverage (baseline / arm)", "quota deaths (baseline / arm)",
             "SKIPs (baseline / arm)"],
            [[code(r["target"]), r["level"], r["slack"],
              delta_text(g.fmt, r),
              p_side(g.p, r["sign_flip_p"]), p_side(g.p, r["p_holm"]), row_verdict(r),
              f"{g.fmt(r['baseline']['coverage'])} / {g.fmt(r['arm']['coverage'])}",
              f"{g.fmt(r['baseline']['quota_deaths'])} / {g.fmt(r['arm']['quota_deaths'])}",
              f"{g.fmt(r['baseline']['skips'])} / {g.fmt(r['arm']['skips'])}"]
             for r in dose["rows"]],
            f"Baseline {code(dose['baseline'])}, arm {code(dose['arm'])} (ground truth). A "
            "quota death: an episode that ran into the request quota; a SKIP: a page given up "
            "at an L1 decision."
            + said_why(dose["rows"]))
    rows = []
    for x in dose["invariance"]:
        cells = [("n/a" if v is None else "invariant" if v["invariant"] else
                  f"{v['distinct_vectors']} distinct"
                  + "".join(f"; {code(a)} = {code(b)}" for a, b in v["indistinguishable"]))
                 for v in (x["baseline"], x["arm"])]
        rows.append([x["level"], x["slack"], *cells,
                     "not checked" if x["forced"] is None else "yes" if x["forced"] else "no"])
    d.table(["level", "slack", "targets' per-seed coverage, baseline",
             "targets' per-seed coverage, arm", "forced (decision-invariant)"], rows,
            "Decision invariance per slack: identical per-seed vectors mean the design cannot "
            "tell those targets' decisions apart there.")
    for level in dose["shape"]:
        d.p(shape_sentence(dose, level, g.fmt))
