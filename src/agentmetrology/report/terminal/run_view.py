"""What `agm run` prints: a JSON line per episode or one table, notices, and its exit code
(returned, for the command to exit with)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from agentmetrology.report.terminal.run_table import (
    COST_COLUMN,
    REPEAT_COLUMN,
    cost_text,
    failure_line,
    print_rows,
    print_run_summary,
)
from agentmetrology.run.adhoc import DEFAULT_STORE, RunOutcome
from agentmetrology.run.request import RunRequest

PROGRESS_AFTER = 20  # episodes: below this a run takes well under a second


class RunView:
    """Prints one run: rows as they come (with --json), then the table, notices and exit code.

    `out` makes the stdout console (made when a table is printed); `err` is the stderr one.
    """

    def __init__(self, request: RunRequest, json_out: bool, out: Callable[[], Console],
                 err: Console) -> None:
        self.request, self.json_out = request, json_out
        self.out, self.err = out, err
        self.spec = request.spec
        self.rows: list[dict[str, Any]] = []
        self.total = request.count
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), console=err, transient=True,
                                 disable=request.is_llm or self.total < PROGRESS_AFTER
                                 or not err.is_terminal)
        self.bar = self.progress.add_task(f"{self.spec.name} {request.agent} {request.level}",
                                          total=self.total)

    def row(self, row: dict[str, Any]) -> None:
        """Keep a row; print it at once as a JSON line with --json."""
        if self.json_out:
            print(json.dumps(row), flush=True)
        self.rows.append(row)
        self.progress.advance(self.bar)

    def interrupted(self, said: str, again: str) -> None:
        """Print what a stopped run did and whether `again`, the same command, resumes it.

        An LLM run records into a store as it goes (its rows are read back at the end, so
        none is here yet): the same command resumes. A model-free run is not recorded: it
        printed its rows as they came, and the same command runs every episode again.
        """
        r = self.request
        if r.is_llm:
            self.err.print(f"error: {said}: the episodes recorded so far are kept in the store "
                           f"{r.store or DEFAULT_STORE} and are not run again; to resume, run "
                           f"the same command: {again}", markup=False, emoji=False,
                           soft_wrap=True)
            return
        if not self.json_out:
            self._table(f"{self.spec.name}: {r.agent} at {r.level} (interrupted)")
        self.err.print(f"{said} after {len(self.rows)} of {self.total} episodes (a model-free "
                       "run is not recorded: the same command runs every episode again)",
                       markup=False, emoji=False, soft_wrap=True)

    def finish(self, outcome: RunOutcome) -> int:
        """Print the table (or, for LLM runs, the notices too); return the exit code: 1 when
        nothing counts, launching stopped or an episode was not recorded, else 0."""
        r = self.request
        if not r.is_llm:
            if not self.json_out:
                self._table(f"{self.spec.name}: {r.agent} at {r.level}, every scorer side by "
                            "side")
            return 0
        self._unknown_cost_notice()
        if self.json_out:
            for row in self.rows:
                if row.get("measurement_failure"):
                    self.err.print(failure_line(row), markup=False, emoji=False,
                                      soft_wrap=True)
        else:
            self._table(f"{r.agent} at {r.level} (store {outcome.store}, campaign "
                        f"{outcome.campaign})", cost=True)
        if outcome.stopped:
            self.err.print(f"stopped launching: {outcome.stopped}; "
                              f"{self.total - len(self.rows) - len(outcome.failed)} "
                              "episode(s) not launched",
                              markup=False, emoji=False, soft_wrap=True)
        for line in outcome.failed:
            self.err.print(f"not recorded: {line}", markup=False, emoji=False, soft_wrap=True)
        if outcome.failed:
            self.err.print(f"error: {len(outcome.failed)} episode(s) not recorded (their "
                           "attempts failed, see above); run the same command to run them "
                           "again", markup=False, emoji=False, soft_wrap=True)
        if none_measured(self.err, self.rows):
            return 1
        return 1 if outcome.stopped or outcome.failed else 0

    def _unknown_cost_notice(self) -> None:
        from agentmetrology.report.terminal.campaign_text import unknown_cost_notice
        from agentmetrology.run.llm_options import PRICE_FORMAT

        unknown = sum(1 for r in self.rows if r.get("model_attempts") and r.get("cost") is None)
        if unknown and self.request.target is not None:  # one notice per run, not a warning
            prices = self.request.target.llm_target().prices
            self.err.print(unknown_cost_notice(self.request.agent, unknown, prices,
                                                  f"give --price {PRICE_FORMAT}"),
                              markup=False, emoji=False, style="yellow", soft_wrap=True)

    def _table(self, title: str, cost: bool = False) -> None:
        repeat = (REPEAT_COLUMN,) if self.request.repeats > 1 else ()
        rows = [{**r, "cost_text": cost_text(r)} for r in self.rows] if cost else self.rows
        print_rows(self.out(), self.err, self.spec, rows, title,
                   (*repeat, COST_COLUMN) if cost else repeat)
        if len(self.rows) > 1:  # many episodes end with what they add up to
            from agentmetrology.run.summary import score_path, summarize_run

            print_run_summary(self.out(), score_path(self.spec),
                              summarize_run(self.spec, self.rows))


def none_measured(err: Console, rows: list[dict[str, Any]]) -> bool:
    """Say in one line, and return True, when every episode was a measurement failure."""
    if rows and all(r.get("measurement_failure") for r in rows):
        err.print(f"error: none of the {len(rows)} episode(s) could be measured (see the "
                          "reasons above); fix the cause and rerun with "
                          "--retry-measurement-failures", markup=False)
        return True
    return False
