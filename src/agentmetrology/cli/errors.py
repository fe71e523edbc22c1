"""How the CLI reports user errors: one clear line on stderr and exit code 2, no traceback."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console

_err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print `error: message` on stderr and exit with `code`."""
    _err.print(f"[bold red]error:[/] {message}", markup=True)
    raise typer.Exit(code)
