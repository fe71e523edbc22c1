"""Inspect audits and the census on the terminal: the card with each scorer's do-nothing
verdict, the census table with why a benchmark was not probed, and model proposals.

The documents are built by `audit` (`audit_inspect`, `run_census`, `audit.proposals`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from agentmetrology.inspect_ext.audit.census import judged
from agentmetrology.report.terminal.audit_card import REASON_CHARS, invalid_lines, print_card
from agentmetrology.report.terminal.table_fit import Col, fit_table


def print_inspect(con: Console, doc: dict[str, Any], paths: dict[str, Path]) -> None:
    """Print an Inspect task's card, its samples, do-nothing verdicts and INVALID reasons."""
    print_card(con, doc["card"])
    t = doc["target"]
    con.print(f"samples: {t['samples_audited']} audited of {t['dataset_samples']}, "
              f"{t['samples_without_target']} without a usable target", markup=False)
    if t.get("probed_without"):
        con.print(f"probed without its {t['probed_without']} sandbox: forged outputs only, "
                  "no do-nothing run", markup=False)
    for k in t["scorers"]:
        e = k.get("empty_trajectory")
        # the kind with the samples it rests on, as the card prints it
        said = (k.get("verdict") or {}).get("text") or k["kind"]
        line = f"{k['scorer']}: {said} ({k['basis']})"
        if e:
            line += f"; do-nothing passes {e['passed']} of {e['scored']} scored"
            if e["invalid"]:
                line += f", {e['invalid']} INVALID"
            if e.get("unreliable"):  # single draws of a scorer that changes its verdict
                line += " (unreliable: non-deterministic scorer)"
        con.print(line, markup=False)
        for r in (e or {}).get("invalid_reasons", []):
            con.print(f"  empty trajectory: {r['cells']} × {_cut(r['reason'])}", markup=False)
    for line in invalid_lines(doc):
        con.print(line, markup=False)
    con.print(f"audit.json: {paths['audit']}", markup=False)
    con.print(f"HTML report: {paths['html'].resolve()}", markup=False)


def _cut(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS] + "…"


def _scorer_name(benchmark: str, scorer: str) -> str:
    """Return a scorer's name without the namespace it shares with its benchmark (never cut)."""
    space = benchmark.rsplit("/", 1)[0] + "/" if "/" in benchmark else ""
    return scorer[len(space):] if space and scorer.startswith(space) else scorer


def census_rows(doc: dict[str, Any]) -> list[list[str]]:
    """Return one table row per benchmark scorer (one per benchmark not probed)."""
    out = []
    for r in doc["rows"]:
        if r["status"] != "probed":
            out.append([r["benchmark"], "-", "-", "not probed", "-", "-"])
            continue
        for s in r["scorers"]:
            scored = s.get("empty_scored")
            v = s.get("criterion_verdict")
            if not judged(s):  # nothing was judged: no n to rest on (as the card says it)
                crit = "not probed"
            else:
                crit = v["text"] if v else s["criterion"] + (
                    f" (n={r['samples']})" if r.get("samples") else
                    f" (n={s['criterion_pairs']})" if s.get("criterion_pairs") else "")
            if s.get("stability", "").find("unstable") >= 0:
                crit += ", unstable"
            out.append([r["benchmark"], _scorer_name(r["benchmark"], s["scorer"]), s["kind"],
                        # a non-deterministic scorer's count is single draws: its reason
                        # line says why there is none
                        crit, f"{s['empty_passed']}/{scored}" if scored and not s.get(
                            "empty_unreliable") else "-",
                        s["claim"] or "none"])
    return out


def census_reasons(doc: dict[str, Any]) -> list[str]:
    """Return one line per benchmark or scorer not probed (or not passing), saying why."""
    out = []
    for r in doc["rows"]:
        if r["status"] != "probed":
            why = f": {r['reason']}" if r.get("reason") else ""
            out.append(f"not probed: {r['benchmark']} needs {r['needs']}{why}")
            continue
        for s in r["scorers"]:
            if s["criterion"] != "pass" and s.get("criterion_reason"):
                out.append(f"criterion {s['criterion']}: {r['benchmark']} "
                           f"{_scorer_name(r['benchmark'], s['scorer'])}: "
                           f"{s['criterion_reason']}")
    return out


# At 80 columns the benchmark, the criterion and the claim stay; the reasons follow the table.
# The criterion is a verdict with its n (`fail (n = 20 samples compared)`): it folds at spaces.
CENSUS_COLS = (Col("benchmark", 9), Col("scorer", 4), Col("kind", 6),
               Col("criterion", 8, wrap=True), Col("do-nothing", 5, numeric=True),
               Col("licensed claim", 7))


def print_census(con: Console, doc: dict[str, Any], tau2: list[dict[str, Any]], out: Path) -> None:
    """Print the census table (every benchmark's scorers, what was not probed and why), the
    totals and the tau2 do-nothing counts."""
    s = doc["summary"]
    con.print(fit_table(con, "census", CENSUS_COLS, census_rows(doc), full="census.json",
                        markup=False))  # a dict scorer's key, `scorer[security]`, is no markup
    for line in census_reasons(doc):
        con.print(line, markup=False)
    kinds = ", ".join(f"{k} {n}" for k, n in s["by_kind"].items()) or "none"
    crit = ", ".join(f"{k} {n}" for k, n in s["by_criterion"].items()) or "none"
    con.print(f"{s['probed']} of {s['benchmarks']} benchmarks probed, {s['scorers']} scorers; "
              f"kinds: {kinds}; criterion: {crit}", markup=False)
    con.print("criterion: does the scorer rank correct work above degraded work (n = samples "
              "compared; a seeded built-in target's samples are its (task, seed) instances); "
              "do-nothing: samples an empty trajectory passes / samples scored",
              markup=False)
    for t in tau2:
        line = f"{t['spec']}: do-nothing passes {t['shipped']['passed']} of " \
               f"{t['shipped']['scored']}"
        if "database_unchanged" in t:
            line += (f" (database unchanged {t['database_unchanged']['passed']}, required "
                     f"outputs {t['required_outputs']['passed']}, both {t['both']})")
        con.print(line, markup=False)
    con.print(f"census.json: {out / 'census.json'}", markup=False)
    con.print(f"HTML report: {(out / 'report.html').resolve()}", markup=False)


def print_proposals(con: Console, what: str, doc: dict[str, Any]) -> None:
    """Print one line per proposal: an ownership map's decisions, or forged probe outputs."""
    if what == "ownership":
        for name, d in doc["decisions"].items():
            where = ", ".join(f"{e['file']}:{e['line']}" for e in d["evidence"]) or "no evidence"
            con.print(f"proposal: {name} owned by {d['owner'] or '?'} ({where})", markup=False)
    else:
        for p in doc["probes"]:
            con.print(f"proposal: {p['sample']}/{p['name']} degraded={p['degraded']}: "
                      f"{p['finding']}", markup=False)
