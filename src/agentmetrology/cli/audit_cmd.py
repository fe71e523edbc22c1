"""`agm audit comtrade|bfcl`: probe a benchmark's scorer and ownership, write a validity card."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from agentmetrology.audit.comtrade_audit import audit_comtrade, seal
from agentmetrology.audit.output import write_audit
from agentmetrology.audit.scorer_override import ScorerLoadError, load_scorer
from agentmetrology.audit.targets.comtrade import ComtradeTarget
from agentmetrology.cli.console import make_console
from agentmetrology.cli.errors import fail
from agentmetrology.records.canonical import to_plain
from agentmetrology.report.audit_report import render_audit_report
from agentmetrology.report.numberguard import NumberGuardError

console = make_console()
audit_app = typer.Typer(help="Audit a benchmark: probes, ownership, 2x2, validity card.",
                        no_args_is_help=True)


def _print_card(card: dict[str, object]) -> None:
    configs = card["configurations"]
    assert isinstance(configs, list)
    table = Table(title=f"Validity card: {card['benchmark']}")
    table.add_column("row")
    for c in configs:
        table.add_column(f"{c['level']} + {c['scorer']}" if c["level"] else str(c["scorer"]))
    for key in ("scorer_kind", "criterion_sensitivity", "ownership_completeness",
                "non_degeneracy", "replay"):
        table.add_row(key.replace("_", " "), *[str(c["rows"][key]["status"]) for c in configs])
    table.add_row("licensed claim", *[str(c["licensed_claim"]) for c in configs])
    console.print(table)


def _emit(doc: dict[str, object], out: Path, json_out: bool) -> None:
    try:
        markdown, html = render_audit_report(doc)
    except NumberGuardError as exc:
        fail(f"report refused by the number guard: {exc}")
    try:
        paths = write_audit(out, doc, markdown, html)
    except OSError as exc:
        fail(f"cannot write the audit into {out}: {exc.strerror or exc}")
    if json_out:
        print(json.dumps(to_plain(doc["card"]), indent=2, sort_keys=True))
        return
    _print_card(doc["card"])  # type: ignore[arg-type]
    target = doc.get("target")
    if isinstance(target, dict) and "deviations" in target:
        console.print(f"cells: {target['cells']}, deviations from ground truth: "
                      f"{target['deviations']}")
    console.print(f"audit.json: {paths['audit']}")
    console.print(f"HTML report: {paths['html'].resolve()}")


@audit_app.command("comtrade")
def audit_comtrade_cmd(
    out: Path = typer.Option(Path("out/audit-comtrade"), "--out", help="Output directory."),
    scorer: str = typer.Option(None, "--scorer", help="Replace the shipped scorer with "
                               "FILE.py:function(task_id, seed, submission) -> number."),
    seeds: int = typer.Option(5, "--seeds", min=1, max=100,
                              help="Seeds per task for probes, ownership and the 2x2."),
    seed: int = typer.Option(0, "--seed", min=0, help="Analysis seed for bootstrap intervals."),
    json_out: bool = typer.Option(False, "--json", help="Print the card as JSON."),
) -> None:
    """Audit ComtradeBench with zero model calls; writes audit.json, card.json and reports."""
    user = None
    label = None
    if scorer:
        try:
            loaded = load_scorer(scorer)
        except ScorerLoadError as exc:
            fail(str(exc))
        user, label = loaded, loaded.label
    target = ComtradeTarget(seeds=seeds, scorer=user, scorer_label=label)
    doc = seal(audit_comtrade(target, seed=seed))
    if user is not None:
        doc["scorers"]["shipped"]["sha256"] = loaded.sha256
    _emit(doc, out, json_out)


@audit_app.command("bfcl")
def audit_bfcl_cmd(
    category: str = typer.Option("simple_python", "--category",
                                 help="BFCL category (current or older name, e.g. simple)."),
    limit: int = typer.Option(None, "--limit", min=1, help="Audit the first N entries."),
    out: Path = typer.Option(Path("out/audit-bfcl"), "--out", help="Output directory."),
    json_out: bool = typer.Option(False, "--json", help="Print the card as JSON."),
) -> None:
    """Audit the Berkeley Function Calling Leaderboard's AST checker (optional extra `bfcl`)."""
    from agentmetrology.audit.generic_audit import audit_target
    from agentmetrology.audit.targets.bfcl_checker import BfclUnavailable

    try:
        from agentmetrology.audit.targets.bfcl import BfclTarget

        target = BfclTarget(category, limit)
    except BfclUnavailable as exc:
        fail(str(exc))
    except ValueError as exc:
        fail(str(exc))
    extra = {"category": target.category, "bfcl_eval_version": target.version}
    _emit(seal(audit_target(target, extra=extra)), out, json_out)
