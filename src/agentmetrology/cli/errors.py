"""How the CLI reports user errors: one clear line on stderr and exit code 2, no traceback."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

_err = Console(stderr=True, highlight=False, soft_wrap=True)


PREFIX = "error:"


def fail(message: str, code: int = 2) -> NoReturn:
    """Print `error: message` on stderr and exit with `code` (inside a command)."""
    _err.print(f"[bold red]{PREFIX}[/] {escape(message)}", markup=True)
    raise typer.Exit(code)


def fail_line(message: str, code: int = 2) -> NoReturn:
    """Print `error: message` on stderr and exit the process with `code` (outside typer)."""
    _err.print(f"[bold red]{PREFIX}[/] {escape(message)}", markup=True)
    raise SystemExit(code)
