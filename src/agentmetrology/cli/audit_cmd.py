"""`agm audit TARGET`: probe a benchmark's scorer and ownership, write a validity card.

TARGET is any registered environment (`agm envs`) or `bfcl`.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from agentmetrology.audit.env_audit import audit_env, seal
from agentmetrology.audit.output import write_audit
from agentmetrology.audit.scorer_override import ScorerLoadError, load_scorer
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.cli.console import make_console
from agentmetrology.cli.env_cmd import env_arg
from agentmetrology.cli.errors import fail
from agentmetrology.records.canonical import to_plain
from agentmetrology.report.audit_report import render_audit_report
from agentmetrology.report.numberguard import NumberGuardError
from agentmetrology.run.seeds import parse_seeds

console = make_console()


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


def _seed_count(text: str) -> int:
    try:
        seeds = parse_seeds(text)
    except ValueError as exc:
        fail(str(exc))
    if seeds != list(range(len(seeds))):
        fail(f"the audit runs seeds 0..N-1: give --seeds 0-{len(seeds) - 1} (got {text!r})")
    if len(seeds) > 100:
        fail("the audit takes at most 100 seeds (--seeds 0-99)")
    return len(seeds)


def audit_cmd(
    target: str = typer.Argument(..., help="A registered environment (agm envs) or bfcl."),
    out: Path = typer.Option(None, "--out", help="Output directory (default out/audit-TARGET)."),
    scorer: str = typer.Option(None, "--scorer", help="Replace the shipped scorer with "
                               "FILE.py:function(task_id, seed, submission) -> number."),
    seeds: str = typer.Option("0-4", "--seeds", help="Episode seeds for probes, ownership and "
                                                     "the 2x2: a range from 0, e.g. 0-4."),
    analysis_seed: int = typer.Option(0, "--analysis-seed", min=0,
                                      help="Seed of the bootstrap intervals."),
    category: str = typer.Option("simple_python", "--category",
                                 help="bfcl: category (current or older name, e.g. simple)."),
    limit: int = typer.Option(None, "--limit", min=1, help="bfcl: audit the first N entries."),
    json_out: bool = typer.Option(False, "--json", help="Print the card as JSON."),
) -> None:
    """Audit a benchmark with zero model calls; writes audit.json, card.json and reports."""
    out = out or Path(f"out/audit-{target}")
    if target == "bfcl":
        _audit_bfcl(category, limit, out, json_out)
        return
    spec = env_arg(target)
    count = _seed_count(seeds)
    user = None
    label = None
    if scorer:
        try:
            loaded = load_scorer(scorer)
        except ScorerLoadError as exc:
            fail(str(exc))
        user, label = loaded, loaded.label
    try:
        env_target = EnvTarget(spec, seeds=count, scorer=user, scorer_label=label)
    except ValueError as exc:
        fail(str(exc))
    doc = seal(audit_env(env_target, seed=analysis_seed))
    if user is not None:
        doc["scorers"]["shipped"]["sha256"] = loaded.sha256
    _emit(doc, out, json_out)


def _audit_bfcl(category: str, limit: int | None, out: Path, json_out: bool) -> None:
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
