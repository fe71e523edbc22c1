"""The `agm` / `agentmetrology` command line.

Commands are listed in `cli.lazy_commands.COMMANDS` and imported only when they run (a
command's module pulls in what it needs; start-up imports only typer and this package's base).
"""

from __future__ import annotations

import os
import sys

import typer

from agentmetrology import __version__
from agentmetrology.cli import heap_exit
from agentmetrology.cli.errors import fail_line
from agentmetrology.cli.lazy_commands import LazyRootGroup
from agentmetrology.cli.pipes import guard_stdout
from agentmetrology.edges.dotenv import load_dotenv
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


# typer's command-line errors, found from its public BadParameter: newer typer vendors click
# (typer._click), older ones raise click's own classes; the class names are the same.
_ERRORS = {c.__name__: c for c in typer.BadParameter.__mro__}
_USAGE_ERROR: type[Exception] = _ERRORS["UsageError"]
_CLICK_ERROR: type[Exception] = _ERRORS["ClickException"]


def _run_app() -> None:
    """Run the command table; a usage mistake is one line naming it (exit 2), not usage text."""
    try:
        code = app(standalone_mode=False)
    except _USAGE_ERROR as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            exc.show()  # type: ignore[attr-defined]  # `agm GROUP` alone: the help was asked
            raise SystemExit(getattr(exc, "exit_code", 2)) from None
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else "agm"
        fail_line(f"{where}: {exc.format_message()} (see '{where} --help')",  # type: ignore[attr-defined]
                  getattr(exc, "exit_code", 2))
    except _CLICK_ERROR as exc:
        fail_line(exc.format_message(), getattr(exc, "exit_code", 1))  # type: ignore[attr-defined]
    except typer.Abort:
        print("Aborted!", file=sys.stderr)
        raise SystemExit(1) from None
    if isinstance(code, int) and code:
        raise SystemExit(code)


def main() -> None:
    """Run the command line; any user error anywhere ends as one line and exit code 2."""
    guard_stdout()
    try:
        load_dotenv()  # API keys from ./.env; never overrides a variable already set
        # numpy's OpenBLAS starts a thread per core at import, which spins for 0.05-0.1 s of
        # CPU (`import numpy`: 0.12-0.18 s user CPU, 0.06-0.09 s with one thread; most
        # commands import it). agm does no BLAS work a thread would help (one small
        # dot product in stats.agreement), so one thread unless the user or .env asks for more.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        _run_app()  # `agm audit inspect|census|propose` resolve in the root group
    except UserError as exc:  # the one handler: commands need not catch what users can fix
        fail_line(str(exc))


def entry() -> None:
    """Run the command line as the `agm` console script: `main`, then end the process without
    freeing a heap a command kept (cli.heap_exit)."""
    heap_exit.arm()
    try:
        main()
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            heap_exit.end(heap_exit.exit_code(exc.code))
        raise
    heap_exit.end(0)


if __name__ == "__main__":
    entry()
