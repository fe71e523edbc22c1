"""A campaign run's progress bar on a terminal: counts, failures, cost, every word whole."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console

from agentmetrology.report.terminal.campaign_text import cost_text

if TYPE_CHECKING:
    from agentmetrology.run.campaign.execute import Progress as RunProgress


BAR_WIDTH = 10
ELAPSED_WIDTH = 7  # rich's TimeElapsedColumn: H:MM:SS


def progress_status(parts: list[str], room: int) -> str:
    """Return the status parts (most important first) joined by ' · ', leaving out the last
    ones until the line fits `room` cells: rich would otherwise cut every column mid-word."""
    while len(parts) > 1 and len(" · ".join(parts)) > room:
        parts = parts[:-1]
    return " · ".join(parts)


class CampaignBar:
    """A rich progress bar fed with run progress snapshots, every word whole at any width."""

    def __init__(self, console: Console) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = console
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(bar_width=BAR_WIDTH),
            TextColumn("{task.completed}/{task.total}"),
            TextColumn("{task.fields[status]}", markup=False),
            TimeElapsedColumn(), console=console, transient=False)
        self.task: Any = None  # a rich TaskID once the first snapshot arrived

    def update(self, p: RunProgress) -> None:
        """Show a snapshot."""
        count = f"{p.done}/{p.planned}"
        room = self.console.width - len("campaign") - BAR_WIDTH - len(count) - ELAPSED_WIDTH - 5
        status = progress_status(
            [f"failed {p.failed_agent} agent / {p.failed_infra} infra",
             f"cost {cost_text(p.cost, p.cost_unknown)}", f"running {p.running}",
             f"remaining {p.remaining}"], room)
        if self.task is None:
            self.task = self.progress.add_task("campaign", total=p.planned, completed=p.done,
                                               status=status)
        else:
            self.progress.update(self.task, completed=p.done, status=status)
