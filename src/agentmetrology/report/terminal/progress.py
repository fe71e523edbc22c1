"""The audit's progress on a terminal: one short bar naming the stage, none when piped."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from agentmetrology.audit.env_audit import Progress as AuditProgress


@contextmanager
def stage_progress(con: Console) -> Iterator[AuditProgress | None]:
    """Yield a progress callback drawing the audit's stages on `con`, or None off a terminal."""
    if not con.is_terminal:
        yield None  # piped or captured stderr stays clean
        return
    # A short bar leaves the stage's words whole at 80 columns (rich cuts the text first).
    bar = Progress(TextColumn("audit: {task.description}"), BarColumn(bar_width=16),
                   MofNCompleteColumn(), TimeElapsedColumn(), console=con, transient=True)
    with bar:
        task = bar.add_task("starting", total=None)

        def update(stage: str, done: int, total: int) -> None:
            bar.update(task, description=stage, completed=done, total=total, refresh=True)

        yield update
