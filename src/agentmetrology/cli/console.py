"""The rich console the CLI prints with: wide enough for tables when output is piped."""

from __future__ import annotations

from rich.console import Console

PIPE_WIDTH = 160


def make_console() -> Console:
    """Return a stdout console; piped output gets a fixed width instead of rich's 80 columns."""
    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=PIPE_WIDTH)
    return console
