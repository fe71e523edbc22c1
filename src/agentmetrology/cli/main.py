"""The `agm` / `agentmetrology` command line."""

from __future__ import annotations

import typer

from agentmetrology.cli.archive_cmd import archive_app
from agentmetrology.cli.audit_cmd import audit_app
from agentmetrology.cli.campaign_cmd import campaign_app
from agentmetrology.cli.comtrade_cmd import (
    demo_table,
    run_app,
    score_app,
    tasks_app,
    truth_app,
)
from agentmetrology.cli.serve_cmd import serve_app
from agentmetrology.cli.stats_cmd import stats_app

app = typer.Typer(
    name="agm",
    help="agentmetrology: valid measurement of LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(tasks_app, name="tasks")
app.add_typer(truth_app, name="truth")
app.add_typer(run_app, name="run")
app.add_typer(score_app, name="score")
app.add_typer(stats_app, name="stats", help="Reliability statistics for a results table.")
app.add_typer(audit_app, name="audit")
app.add_typer(campaign_app, name="campaign", help="Run and track campaigns in an evidence store.")
app.add_typer(serve_app, name="serve", help="Serve environments' tools (MCP) to any client.")
app.add_typer(archive_app, name="archive", help="Audit archived runs without new rollouts.")


@app.command()
def demo(seeds: int = typer.Option(10, "--seeds", min=1, help="Seeds per task.")) -> None:
    """Run the built-in demonstration with no model and no API key."""
    demo_table(seeds)


def main() -> None:
    """Run the command line."""
    app()
