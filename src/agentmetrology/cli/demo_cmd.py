"""`agm demo`: every scripted behaviour at L2, ground truth beside the shape judge."""

from __future__ import annotations

from statistics import fmean

import typer

from agentmetrology.cli.console import make_console
from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT, get_env
from agentmetrology.report.terminal.table_fit import Col, fit_table
from agentmetrology.run.episode import run_one

DEMO_ENV = DEFAULT_ENVIRONMENT
DEMO_TASKS = ("T3_duplicates", "T4_rate_limit_429", "T5_server_error_500", "T6_page_drift",
              "T8_mixed_faults")


def demo_table(seeds: int = 10) -> None:
    """Print every scripted behaviour at L2 on five fault tasks: GT F1 beside the judge."""
    spec = get_env(DEMO_ENV)
    rows = []
    for name in (n for n in spec.agents if n.startswith("scripted:")):
        f1s, totals = [], []
        for t in DEMO_TASKS:
            for s in range(seeds):
                r = run_one(spec, t, s, name, "L2")
                # Scripted submissions are always readable; a None would be INVALID, not 0.
                gt, judge = r.assessment("ground_truth"), r.assessment("judge")
                if gt.score is not None:
                    f1s.append(gt.score)
                if judge.score is not None and judge.status != "INVALID":
                    totals.append(judge.score)
        rows.append([name, f"{fmean(f1s):.3f}", f"{min(f1s):.3f}", f"{fmean(totals):.1f}",
                     f"{min(totals):.1f}"])
    cols = [Col("agent", 9), Col("GT F1 mean", 8, True), Col("GT F1 worst", 7, True),
            Col("judge mean", 6, True), Col("judge worst", 5, True)]
    console = make_console()
    console.print(fit_table(console, f"Scripted behaviours at L2 on {len(DEMO_TASKS)} tasks x "
                                     f"{seeds} seeds: ground truth vs the shape judge (0-100)",
                            cols, rows))


def demo_cmd(seeds: int = typer.Option(10, "--seeds", min=1, help="Seeds per task.")) -> None:
    """Run the built-in demonstration with no model and no API key."""
    demo_table(seeds)
