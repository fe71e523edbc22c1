"""The `agm` / `agentmetrology` command line.

Commands are listed in `cli.lazy_commands.COMMANDS` and imported only when they run (a
command's module pulls in what it needs; start-up imports only typer and this package's base).
"""

from __future__ import annotations

import typer

from agentmetrology import __version__
from agentmetrology.cli.dotenv import load_dotenv
from agentmetrology.cli.errors import fail_line
from agentmetrology.cli.lazy_commands import LazyRootGroup
from agentmetrology.cli.pipes import guard_stdout
from agentmetrology.records.errors import UserError

app = typer.Typer(
    name="agm",
    help="agentmetrology: valid measurement of LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=LazyRootGroup,
)


def _version(value: bool) -> None:
    if value:
        print(f"agm {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", is_eager=True, callback=_version,
                                       help="Print the version and exit.")) -> None:
    """agentmetrology: valid measurement of LLM agents."""


def main() -> None:
    """Run the command line; any user error anywhere ends as one line and exit code 2."""
    guard_stdout()
    try:
        load_dotenv()  # API keys from ./.env; never overrides a variable already set
        app()  # `agm audit inspect|census|propose ...` resolve in the root group (lazy_commands)
    except UserError as exc:  # the one handler: commands need not catch what users can fix
        fail_line(str(exc))


if __name__ == "__main__":
    main()
