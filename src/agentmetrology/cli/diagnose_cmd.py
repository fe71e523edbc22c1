"""`agm diagnose STORE --out DIR`: paired-mutation diagnostics of a store's campaigns."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from agentmetrology.cli.console import make_console
from agentmetrology.cli.errors import fail
from agentmetrology.cli.table_fit import Col, fit_table
from agentmetrology.diagnose.run import diagnose_store
from agentmetrology.report.diagnose_report import render_diagnose_report
from agentmetrology.report.numberguard import NumberGuardError
from agentmetrology.store import LedgerError


def diagnose_cmd(
    store: Path = typer.Argument(..., help="Evidence store of a campaign with mutations."),
    out: Path = typer.Option(Path("out/diagnose"), "--out", help="Output directory."),
    analysis_seed: int = typer.Option(0, "--analysis-seed", min=0,
                                      help="Seed of the bootstrap intervals."),
    json_out: bool = typer.Option(False, "--json", help="Print diagnose.json."),
) -> None:
    """Tell agent, environment and scorer apart: gaps, rescored gaps, MSR/MTR, readings."""
    try:
        doc = diagnose_store(store, analysis_seed)
    except (ValueError, LedgerError, OSError) as exc:
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    try:
        markdown, html = render_diagnose_report(doc)
    except NumberGuardError as exc:
        fail(f"report refused by the number guard: {exc}")
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "diagnose.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        (out / "report.md").write_text(markdown)
        (out / "report.html").write_text(html)
    except OSError as exc:
        fail(f"cannot write into {out}: {exc.strerror or exc}")
    if json_out:
        print(json.dumps(doc, indent=2, sort_keys=True))
        return
    console = make_console()
    rows = [[g["target"], g["mutation"], str(g["complete"]),
             "n/a" if not g.get("vrg") else f"{g['vrg']['value']:.3f}",
             "n/a" if not g.get("rescored_gap") else f"{g['rescored_gap']['value']:.3f}",
             "n/a" if g.get("msr") is None else f"{g['msr']:.3f}", g["reading"]]
            for g in doc["groups"].values()]
    cols = [Col("policy", 9), Col("mutation", 9), Col("pairs", 4, True), Col("VRG", 8, True),
            Col("rescored", 7, True), Col("MSR", 6, True), Col("reading", 9)]
    console.print(fit_table(console, f"Diagnose {store}", cols, rows))
    pc = doc["positive_control"]
    console.print(f"positive control (misleading): {pc['status']}", markup=False)
    if doc["gap_only_ranking"]["warning"]:
        console.print(f"warning: {doc['gap_only_ranking']['warning']}", markup=False)
    console.print(f"report: {(out / 'report.html').resolve()}", markup=False)
