"""How the CLI reports user errors: one clear line on stderr and exit code 2, no traceback.

The message is made one printable line here (edges.display.one_line), whatever it quotes: a
path holding a newline or an escape sequence never splits the line or reaches the terminal."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer
from rich.text import Text

from agentmetrology.cli.console import err_console
from agentmetrology.edges.display import one_line
from agentmetrology.records.errors import UserError

PREFIX = "error:"


def fail(message: str, code: int = 2) -> NoReturn:
    """Print `error: message` on stderr and exit with `code` (inside a command)."""
    err_console.print(Text.assemble((PREFIX, "bold red"), " ", one_line(message)), emoji=False)
    raise typer.Exit(code)


def fail_line(message: str, code: int = 2) -> NoReturn:
    """Print `error: message` on stderr and exit the process with `code` (outside typer)."""
    err_console.print(Text.assemble((PREFIX, "bold red"), " ", one_line(message)), emoji=False)
    raise SystemExit(code)


@contextmanager
def user_errors() -> Iterator[None]:
    """Print a library's UserError as `error: message` and exit 2 inside a command, as `agm`'s
    one handler does (typer's test runner calls commands without that handler)."""
    try:
        yield
    except UserError as exc:
        fail(str(exc))
