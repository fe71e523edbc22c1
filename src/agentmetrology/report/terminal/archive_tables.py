"""Archive audits on the terminal: the measures of `agm archive audit`, the transitions of
`compare`, the per-scorer regrade table and the tau2 leaderboard.

Text read from an archive is shown literally (control characters escaped, never markup).
The documents are built by `archive`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from agentmetrology.archive.redact import redact
from agentmetrology.edges.display import one_line, printable
from agentmetrology.report.terminal.table_fit import Col, fit_table


def _line(value: object) -> str:
    """Return archive text as one line: control characters and line breaks shown as escapes.

    A cell's line break printed as one put its second line in the column as a row of its
    own (a model named `m\\nstored score 0.999` forged a row under the real rows' names)."""
    return printable(str(value)).replace("\n", "\\n")


def _text(value: object) -> Text:
    """Return archive text for a table: one line, control characters escaped, no markup."""
    return Text(_line(value))


def print_archive_audit(console: Console, doc: dict[str, Any], out: Path) -> None:
    """Print an archive audit's measures (coverage, bounds, pass^k, cost, provenance) and
    where its files were written."""
    cov = doc["coverage"]["overall"]
    evidence = doc.get("evidence")
    title = f"archive audit: {doc['archive']['source']} ({doc['archive']['format']})"
    if evidence is not None:
        title += f" [evidence: {evidence['result'].upper().replace('_', ' ')}]"
    table = Table(title=_text(title))
    table.add_column("measure")
    table.add_column("value", justify="right")
    counts = cov["counts"]
    rows: list[tuple[str, Any]] = [
        ("episodes", doc["archive"]["episodes"]), ("tasks", doc["archive"]["tasks"]),
        ("graded", cov["graded"]), ("pass / fail", f"{counts['pass']} / {counts['fail']}"),
        ("ungraded", counts["ungraded"]), ("invalid replay", counts["invalid_replay"]),
        ("recovered by replay", cov["recovered"]),
        ("ungraded reasons", ", ".join(f"{k}: {v}" for k, v in cov["reasons"].items()) or "-"),
        ("stored score", _f(cov["score_stored"])),
        # The stored score counts ungraded episodes as failures; the score over graded ones is
        # what a tool that drops them reports: both, so neither is read as the other.
        ("score over graded", _f(cov["score_graded_only"])),
        ("bounds", f"{_f((cov['bounds'] or {}).get('lower'))} .. "
                   f"{_f((cov['bounds'] or {}).get('upper'))}"),
    ]
    first_k = len(rows)
    for cell in doc["pass_hat_k"]:
        rows.append((f"pass^k stored ({cell['cell']})", _k_text(cell["rows"], "stored")))
        rows.append((f"pass^k upper ({cell['cell']})", _k_text(cell["rows"], "upper")))
    rows.append(("tasks with mixed outcomes", doc["tasks"]["counts"]["mixed"]))
    cost, prov = doc["cost"], doc["provenance"]
    rows.append(("cost multiplicity", _f(cost.get("multiplicity")) if cost["applicable"]
                 else "n/a"))
    rows.append(("provenance candidates", prov.get("candidates") if prov["applicable"]
                 else "n/a"))
    rows.append(("load problems", doc["load"]["problem_count"]))
    rows += [("tau2 finding", h["code"]) for h in doc.get("tau2", {}).get("headlines", [])]
    # Every k when its values fit on one line beside the widest measure name (borders and
    # padding take 7 columns); else k = 1, 2, 4, ... and the last, and a line naming the rest.
    room = console.width - 7 - max(len(_line(name)) for name, _ in rows)
    left_out = []
    for i, cell in enumerate(doc["pass_hat_k"]):
        at = first_k + 2 * i
        if max(len(rows[at][1]), len(rows[at + 1][1])) <= room:
            continue
        shown = shown_k_rows(cell["rows"])
        rows[at] = (rows[at][0], _k_text(shown, "stored"))
        rows[at + 1] = (rows[at + 1][0], _k_text(shown, "upper"))
        kept = {r["k"] for r in shown}
        # A name too wide for any k still shows k = 1, 2, 4, ... and the last: with none left
        # out (one trial), there is nothing to name (the line read "for k =  is in ...").
        if omitted := [r["k"] for r in cell["rows"] if r["k"] not in kept]:
            left_out.append((cell["cell"], omitted))
    for name, value in rows:
        table.add_row(_text(name), _text(value))
    console.print(table)
    for line in _left_out_lines(left_out, len(doc["pass_hat_k"])):
        console.print(Text(_line(line)))
    console.print(f"wrote {out / 'archive.json'}, {out / 'report.md'}, {out / 'report.html'}",
                  markup=False, highlight=False)


def nothing_graded(err: Console, doc: dict[str, Any]) -> int:
    """Say in one line, and return exit code 1, when no episode of the audited archive has a
    grade (stored, or recovered by replay): the audit measured nothing, which is never a pass;
    else return 0."""
    cov = doc["coverage"]["overall"]
    if cov["valid_recovered"]:
        return 0
    # Reason codes may be an archive's own text (a JSONL line's `reason`): redacted, one line.
    why = redact(", ".join(f"{k}: {v}" for k, v in cov["reasons"].items()), limit=300)
    err.print(f"error: no episode of {one_line(str(doc['archive']['source']))} was graded "
              f"({cov['planned']} episode(s), none graded or recovered; "
              f"{one_line(why) or 'no reason recorded'}): the "
              "audit measured nothing and no score of it holds (its files are written, "
              "coverage.overall says why)", markup=False, highlight=False, emoji=False,
              soft_wrap=True)
    return 1


def nothing_compared(err: Console, doc: dict[str, Any]) -> int:
    """Say in one line, and return exit code 1, when no episode is graded in both archives of
    a comparison (none shared, or none graded in both): it measured nothing; else return 0."""
    if doc["transitions"]["n"]:
        return 0
    err.print(f"error: no episode is graded in both archives ({doc['episodes_in_both']} in "
              "both, 0 compared): the comparison measured nothing and none of its fractions "
              "holds (compare.json is written; its warnings say why)", markup=False,
              highlight=False, emoji=False, soft_wrap=True)
    return 1


def shown_k_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the pass^k rows a summary shows when not all fit: k = 1, 2, 4, 8, ... and the
    last one (every k is in archive.json and the reports; a hundred values filled a terminal)."""
    last = rows[-1]["k"] if rows else 0
    return [r for r in rows if r["k"] == last or r["k"] & (r["k"] - 1) == 0]


def _left_out_lines(left_out: list[tuple[str, list[int]]], cells: int) -> list[str]:
    """Return the lines naming the pass^k left out of the table: one per cell, or one for all
    when every cell (of several) leaves out the same k (a store gave six identical lines)."""
    if cells > 1 and len(left_out) == cells and len({tuple(ks) for _, ks in left_out}) == 1:
        return [f"pass^k of all {cells} cells for k = {_k_ranges(left_out[0][1])} is in "
                "archive.json and report.md only"]
    return [f"pass^k ({name}) for k = {_k_ranges(ks)} is in archive.json and report.md only"
            for name, ks in left_out]


def _k_text(rows: list[dict[str, Any]], key: str) -> str:
    """Return pass^k values as `k1=0.500, k2=0.292, ...` for the summary table."""
    return ", ".join(f"k{r['k']}={_f(r[key])}" for r in rows)


def _k_ranges(ks: list[int]) -> str:
    """Return ascending k values with runs joined: [3, 5, 6, 7] -> `3, 5-7`."""
    runs: list[list[int]] = []
    for k in ks:
        if runs and k == runs[-1][-1] + 1:
            runs[-1].append(k)
        else:
            runs.append([k])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


# The scorer names the rows; the flip fraction is the regrade's headline, the counts go first.
REGRADE_COLS = [Col("scorer", 9), Col("compared", 6, True), Col("score changed", 3, True),
                Col("status changed", 2, True), Col("n01", 5, True), Col("n10", 5, True),
                Col("flip fraction", 8, True), Col("rank reversals", 4, True)]


def _regrade_rows(doc: dict[str, Any]) -> list[list[str]]:
    """Return one row per scorer of a regrade document, in REGRADE_COLS order."""
    rows = []
    for name, sc in doc["scorers"].items():
        t = sc["transitions"]
        rows.append([_line(name), str(sc["compared"]), str(sc["score_changed"]),
                     str(sc["status_changed"]), str(t["n01"]), str(t["n10"]),
                     _f(t["flip_fraction"]), str(sc["rank"]["strict_reversals"])])
    return rows


def print_archive_compare(console: Console, doc: dict[str, Any], old: str, new: str,
                          evidence: dict[str, Any]) -> None:
    """Print a comparison's transitions, flip fraction and rank reversals as one table."""
    t = doc["transitions"]
    title = f"compare: {old} -> {new}"
    if evidence:
        title += " [evidence: " + ", ".join(f"{side} {q['result'].upper().replace('_', ' ')}"
                                            for side, q in evidence.items()) + "]"
    table = Table(title=_text(title))
    table.add_column("measure")
    table.add_column("value", justify="right")
    for name, value in (("episodes in both", doc["episodes_in_both"]),
                        ("not comparable (ungraded in one)", doc["not_comparable"]),
                        # the denominator of both fractions below (was left to subtract)
                        ("compared (graded in both)", t["n"]),
                        ("n01 (fail -> pass)", t["n01"]), ("n10 (pass -> fail)", t["n10"]),
                        ("net (n01 - n10)", t["net_count"]),
                        ("net fraction (of compared)", _f(t["net"])),
                        ("flip fraction (of compared)", _f(t["flip_fraction"])),
                        ("units", doc["rank"]["units"]), ("pairs", doc["rank"]["pairs"]),
                        ("strict rank reversals", doc["rank"]["strict_reversals"]),
                        ("ties", doc["rank"]["ties"]),
                        *(("warning", w) for w in doc["warnings"])):
        table.add_row(_text(name), _text(value))
    console.print(table)


def print_store_regrade(console: Console, doc: dict[str, Any]) -> None:
    """Print a store regrade: one row per scorer, then the versions note."""
    title = _text(f"regrade: {doc['store']['source']} [evidence: "
                  f"{doc['evidence']['result'].upper().replace('_', ' ')}]")
    console.print(fit_table(console, title, REGRADE_COLS, _regrade_rows(doc),
                            full="regrade.json or --json", markup=False))
    console.print(printable(doc["version_note"]), markup=False, highlight=False)


LEADERBOARD_COLS = {"domain": Col("domain", 9), "submission": Col("submission", 10, wrap=True),
                    "reported": Col("reported", 6, True), "recomputed": Col("recomputed", 8, True),
                    "re-graded": Col("re-graded", 7, True),  # asked for: kept over reported
                    "nothing": Col("where doing nothing fails", 4, True),
                    # the agent's cost per simulation, not the file's total: the header says so
                    "cost": Col("cost/sim", 5, True)}


def print_leaderboard(console: Console, doc: dict[str, Any], regrade: bool) -> None:
    """Print one row per tau2 submission and domain: reported, recomputed (from the stored
    rewards) and re-graded pass rates, where doing nothing fails, the cost per simulation.

    Submission names are shown whole (they are all that tells two rows apart) and literally;
    columns that do not fit are left out and named, never cut to `gpt-4.1-…`."""
    keys = [k for k in LEADERBOARD_COLS if regrade or k != "re-graded"]
    rows = []
    for domain, view in doc["domains"].items():
        for r in view["rows"]:
            name = _line(r["submission"])
            cells = {"domain": _line(domain), "submission": name,
                     "reported": _f(r["reported"]), "recomputed": _f(r["recomputed"]),
                     "re-graded": _f(r.get("regraded")),
                     "nothing": _f(r["where_doing_nothing_fails"]),
                     "cost": "unpriced" if r["cost_unpriced"] else _f(
                         r["agent_cost_per_simulation"])}
            rows.append([cells[k] for k in keys])
    title = f"tau2 leaderboard: {doc['submissions']} results file(s)"
    console.print(fit_table(console, title, [LEADERBOARD_COLS[k] for k in keys], rows,
                            full="leaderboard.json or --json", markup=False))


def tau2_regrade_line(r: dict[str, Any]) -> str:
    """Return what re-grading a tau2 file found: simulations re-graded and reproduced, the
    transitions, and what changed or could not be re-graded."""
    t = r["transitions"]
    by = ", ".join(f"{k} {v}" for k, v in sorted(r["changed_by"].items()))
    why = ", ".join(f"{k} {v}" for k, v in sorted(r["problems"].items()))
    return (f"re-graded {r['regraded']} of {r['simulations']} simulations, "
            f"{r['reproduced']} reproduce the stored reward; n01 {t['n01']}, n10 "
            f"{t['n10']}" + (f" (changed by {by})" if by else "")
            + (f"; not re-graded: {why}" if why else ""))
