"""How the CLI reports user errors: one clear line on stderr and exit code 2, no traceback."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.text import Text

_err = Console(stderr=True, highlight=False, soft_wrap=True)


PREFIX = "error:"


def fail(message: str, code: int = 2) -> NoReturn:
    """Print `error: message` on stderr and exit with `code` (inside a command)."""
    _err.print(Text.assemble((PREFIX, "bold red"), " ", message), emoji=False)
    raise typer.Exit(code)


def fail_line(message: str, code: int = 2) -> NoReturn:
    """Print `error: message` on stderr and exit the process with `code` (outside typer)."""
    _err.print(Text.assemble((PREFIX, "bold red"), " ", message), emoji=False)
    raise SystemExit(code)
