"""What `agm run` prints: a JSON line per episode or one table, notices, and its exit code."""

from __future__ import annotations

import json
from typing import Any, NoReturn

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from agentmetrology.cli.console import err_console, make_console
from agentmetrology.report.terminal.run_table import (
    COST_COLUMN,
    REPEAT_COLUMN,
    cost_text,
    failure_line,
    print_rows,
    print_run_summary,
)
from agentmetrology.run.adhoc import RunOutcome
from agentmetrology.run.request import RunRequest

PROGRESS_AFTER = 20  # episodes: below this a run takes well under a second


class RunView:
    """Prints one run: rows as they come (with --json), then the table, notices and exit."""

    def __init__(self, request: RunRequest, json_out: bool) -> None:
        self.request, self.json_out = request, json_out
        self.spec = request.spec
        self.rows: list[dict[str, Any]] = []
        self.total = request.count
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), console=err_console, transient=True,
                                 disable=request.is_llm or self.total < PROGRESS_AFTER
                                 or not err_console.is_terminal)
        self.bar = self.progress.add_task(f"{self.spec.name} {request.agent} {request.level}",
                                          total=self.total)

    def row(self, row: dict[str, Any]) -> None:
        """Keep a row; print it at once as a JSON line with --json."""
        if self.json_out:
            print(json.dumps(row), flush=True)
        self.rows.append(row)
        self.progress.advance(self.bar)

    def interrupted(self) -> NoReturn:
        """Print what ran before Ctrl-C and exit 130."""
        r = self.request
        if not self.json_out:
            self._table(f"{self.spec.name}: {r.agent} at {r.level} (interrupted)")
        err_console.print(f"interrupted after {len(self.rows)} of {self.total} episodes")
        raise typer.Exit(130)

    def finish(self, outcome: RunOutcome) -> None:
        """Print the table (or, for LLM runs, the notices too); exit 1 when nothing counts."""
        r = self.request
        if not r.is_llm:
            if not self.json_out:
                self._table(f"{self.spec.name}: {r.agent} at {r.level}, every scorer side by "
                            "side")
            return
        self._unknown_cost_notice()
        if self.json_out:
            for row in self.rows:
                if row.get("measurement_failure"):
                    err_console.print(failure_line(row), markup=False, emoji=False,
                                      soft_wrap=True)
        else:
            self._table(f"{r.agent} at {r.level} (store {outcome.store}, campaign "
                        f"{outcome.campaign})", cost=True)
        if outcome.stopped:
            err_console.print(f"stopped launching: {outcome.stopped}; "
                              f"{self.total - len(self.rows)} episode(s) not launched",
                              markup=False, emoji=False, soft_wrap=True)
        exit_for_failures(self.rows)
        if outcome.stopped:
            raise typer.Exit(1)

    def _unknown_cost_notice(self) -> None:
        from agentmetrology.report.terminal.campaign_text import unknown_cost_notice
        from agentmetrology.run.llm_options import PRICE_FORMAT

        unknown = sum(1 for r in self.rows if r.get("model_attempts") and r.get("cost") is None)
        if unknown and self.request.target is not None:  # one notice per run, not a warning
            prices = self.request.target.llm_target().prices
            err_console.print(unknown_cost_notice(self.request.agent, unknown, prices,
                                                  f"give --price {PRICE_FORMAT}"),
                              markup=False, emoji=False, style="yellow", soft_wrap=True)

    def _table(self, title: str, cost: bool = False) -> None:
        repeat = (REPEAT_COLUMN,) if self.request.repeats > 1 else ()
        rows = [{**r, "cost_text": cost_text(r)} for r in self.rows] if cost else self.rows
        print_rows(make_console(), err_console, self.spec, rows, title,
                   (*repeat, COST_COLUMN) if cost else repeat)
        if len(self.rows) > 1:  # many episodes end with what they add up to
            from agentmetrology.run.summary import score_path, summarize_run

            print_run_summary(make_console(), score_path(self.spec),
                              summarize_run(self.spec, self.rows))


def exit_for_failures(rows: list[dict[str, Any]]) -> None:
    """Exit 1 with one line when every episode was a measurement failure."""
    if rows and all(r.get("measurement_failure") for r in rows):
        err_console.print(f"error: none of the {len(rows)} episode(s) could be measured (see the "
                          "reasons above); fix the cause and rerun with "
                          "--retry-measurement-failures", markup=False)
        raise typer.Exit(1)
