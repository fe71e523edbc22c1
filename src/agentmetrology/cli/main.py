"""The `agm` / `agentmetrology` command line."""

from __future__ import annotations

import sys

import typer

from agentmetrology import __version__
from agentmetrology.cli.archive_cmd import archive_app
from agentmetrology.cli.assess_cmd import assess_cmd
from agentmetrology.cli.audit_cmd import audit_cmd
from agentmetrology.cli.audit_inspect_cmd import inspect_app, route
from agentmetrology.cli.campaign_cmd import campaign_app
from agentmetrology.cli.cases_cmd import cases_app
from agentmetrology.cli.demo_cmd import demo_table
from agentmetrology.cli.diagnose_cmd import diagnose_cmd
from agentmetrology.cli.dotenv import load_dotenv
from agentmetrology.cli.env_cmd import envs_cmd, run_cmd, score_cmd, tasks_cmd, truth_cmd
from agentmetrology.cli.errors import fail_line
from agentmetrology.cli.evidence_cmd import evidence_app
from agentmetrology.cli.experiment_cmd import experiment_app
from agentmetrology.cli.export_cmd import export_cmd
from agentmetrology.cli.help_text import PlainHelpGroup
from agentmetrology.cli.pipes import guard_stdout
from agentmetrology.cli.serve_cmd import serve_app
from agentmetrology.cli.stats_cmd import stats_app
from agentmetrology.cli.view_cmd import view_cmd
from agentmetrology.records.errors import UserError

app = typer.Typer(
    name="agm",
    help="agentmetrology: valid measurement of LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=PlainHelpGroup,
)
app.command("envs")(envs_cmd)
app.command("tasks")(tasks_cmd)
app.command("truth")(truth_cmd)
app.command("run")(run_cmd)
app.command("score")(score_cmd)
app.add_typer(stats_app, name="stats", help="Reliability statistics for a results table.")
app.command("audit")(audit_cmd)
app.command("diagnose")(diagnose_cmd)
app.command("assess")(assess_cmd)
app.add_typer(campaign_app, name="campaign", help="Run and track campaigns in an evidence store.")
app.add_typer(serve_app, name="serve",
              help="Serve an environment to outside clients: its tools over MCP, or OpenEnv.")
app.add_typer(archive_app, name="archive", help="Audit archived runs without new rollouts.")
app.add_typer(experiment_app, name="experiment", help="Pre-registered experiments.")
app.add_typer(evidence_app, name="evidence", help="Verify stores and qualify reports.")
app.add_typer(cases_app, name="cases", help="Failure-derived cases: propose to withdraw.")
app.command("view")(view_cmd)
app.command("export")(export_cmd)


def _version(value: bool) -> None:
    if value:
        print(f"agm {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", is_eager=True, callback=_version,
                                       help="Print the version and exit.")) -> None:
    """agentmetrology: valid measurement of LLM agents."""


@app.command()
def demo(seeds: int = typer.Option(10, "--seeds", min=1, help="Seeds per task.")) -> None:
    """Run the built-in demonstration with no model and no API key."""
    demo_table(seeds)


def main() -> None:
    """Run the command line; any user error anywhere ends as one line and exit code 2."""
    guard_stdout()
    try:
        load_dotenv()  # API keys from ./.env; never overrides a variable already set
        routed = route(sys.argv[1:])  # `agm audit inspect|census ...`
        inspect_app(args=routed, prog_name="agm audit") if routed else app()
    except UserError as exc:  # the one handler: commands need not catch what users can fix
        fail_line(str(exc))


if __name__ == "__main__":
    main()
