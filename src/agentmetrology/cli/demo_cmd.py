"""`agm demo`: every scripted behaviour at L2, ground truth beside the shape judge."""

from __future__ import annotations

import typer

from agentmetrology.cli.console import make_console
from agentmetrology.report.terminal.run_table import print_demo
from agentmetrology.run.demo import DEMO_TASKS, demo_rows
from agentmetrology.run.seeds import MAX_SEEDS


def demo_cmd(seeds: int = typer.Option(10, "--seeds", min=1, max=MAX_SEEDS,
                                       help="Seeds per task.")) -> None:
    """Run the built-in demonstration with no model and no API key."""
    print_demo(make_console(), demo_rows(seeds), len(DEMO_TASKS), seeds)
