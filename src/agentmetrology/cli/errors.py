"""How the CLI reports user errors: one clear line on stderr and exit code 2, no traceback."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.text import Text

from agentmetrology.cli.console import err_console

PREFIX = "error:"


def fail(message: str, code: int = 2) -> NoReturn:
    """Print `error: message` on stderr and exit with `code` (inside a command)."""
    err_console.print(Text.assemble((PREFIX, "bold red"), " ", message), emoji=False)
    raise typer.Exit(code)


def fail_line(message: str, code: int = 2) -> NoReturn:
    """Print `error: message` on stderr and exit the process with `code` (outside typer)."""
    err_console.print(Text.assemble((PREFIX, "bold red"), " ", message), emoji=False)
    raise SystemExit(code)
