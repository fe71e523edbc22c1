"""The rich consoles the CLI prints with: wide enough for tables when output is piped."""

from __future__ import annotations

import os

from rich.console import Console

PIPE_WIDTH = 160
# Every console has emoji=False: text from stores and archives (a target `llm:m`, a task id)
# is printed as it is, where rich would read `:m:` in `llm:m: ...` as an emoji code and print
# a symbol in its place.


def make_console() -> Console:
    """Return a stdout console; piped output is 160 columns wide unless COLUMNS says otherwise."""
    console = Console(highlight=False, emoji=False)
    if not console.is_terminal and not os.environ.get("COLUMNS", "").strip().isdigit():
        console = Console(highlight=False, emoji=False, width=PIPE_WIDTH)
    return console


def _stderr_console() -> Console:
    """Return the stderr console: lines are never wrapped; piped, a progress bar is 160 wide."""
    console = Console(stderr=True, highlight=False, emoji=False, soft_wrap=True)
    if not console.is_terminal:
        console = Console(stderr=True, highlight=False, emoji=False, soft_wrap=True,
                          width=PIPE_WIDTH)
    return console


err_console = _stderr_console()
"""The one stderr console: error lines, notices, banners and progress bars."""
