"""What `agm run` prints: a JSON line per episode or one table, notices, and its exit code."""

from __future__ import annotations

import json
from typing import Any, NoReturn

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from agentmetrology.cli.console import err_console, make_console
from agentmetrology.records.environment import Column, EnvSpec
from agentmetrology.report.terminal.table_fit import Col, fit_table
from agentmetrology.run.adhoc import RunOutcome
from agentmetrology.run.request import RunRequest

PROGRESS_AFTER = 20  # episodes: below this a run takes well under a second
REPEAT_COLUMN = (Col("repeat", 7, True), "repeat", 0)  # the table column of --epochs runs
COST_COLUMN = (Col("cost", 5, True), "cost_text", -1)  # LLM runs


def print_table(title: str, cols: list[Col], cells: list[list[str]]) -> None:
    """Print a table that fits the terminal (or COLUMNS) at print time."""
    console = make_console()  # a console per table: its width is read now
    console.print(fit_table(console, title, cols, cells))


def num(x: object, digits: int = 3) -> str:
    """Return a number with `digits` decimals, or an em dash for a missing value."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return "—"
    return f"{x:.{digits}f}"


def cost_text(row: dict[str, Any]) -> str:
    """Return a row's cost: a number, 'unknown' (a price is missing) or 'none' (no request)."""
    if not row.get("model_attempts"):
        return "none"
    return "unknown" if row.get("cost") is None else f"{row['cost']:.4f}"


def failure_line(row: dict[str, Any]) -> str:
    """Return the line naming a measurement failure's episode (its repeat, with --epochs) and
    why it could not be measured."""
    again = f" repeat {row['repeat']}" if "repeat" in row else ""
    return f"measurement failure: {row['task']} seed {row['seed']}{again}: " \
           f"{row['measurement_failure']}"


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
        from agentmetrology.cli.campaign_cmd import unknown_cost_notice
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
        print_rows(self.spec, rows, title, (*repeat, COST_COLUMN) if cost else repeat)
        if len(self.rows) > 1:  # many episodes end with what they add up to
            from agentmetrology.cli.run_summary import print_run_summary

            print_run_summary(self.spec, self.rows)


def _get(row: dict[str, Any], path: str) -> Any:
    value: Any = row
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def print_rows(spec: EnvSpec, rows: list[dict[str, Any]], title: str,
               extra: tuple[tuple[Col, str, int], ...] = ()) -> None:
    """Print result rows as a table that fits the terminal; measurement failures say why."""
    shown = spec.display.columns if spec.display else ()
    score_cols = shown or tuple(Column(s.label, f"{s.label}.score") for s in spec.scorers)
    # The agent and level are in the title: they go first when the terminal is narrow.
    last = len(score_cols) - 1
    cols = [Col("task", 9), Col("seed", 8, True), Col("agent", 2), Col("level", 1),
            Col("termination", 7), Col("requests", 3, True),
            *(Col(c.header, 6 if i == 0 else (5 if i == last else 4), True)
              for i, c in enumerate(score_cols)),
            *(c for c, _, _ in extra)]
    failures = [r for r in rows if r.get("measurement_failure")]
    if failures:  # why an episode could not be measured, in the table itself
        cols.append(Col("not measured because", 6, wrap=True))
    cells = []
    for r in rows:
        line = [str(r["task"]), str(r["seed"]), str(r["agent"]), str(r["level"]),
                str(r["termination"]), str(r["requests_used"])]
        for c in score_cols:
            value = _get(r, c.path)
            status = _get(r, c.path.split(".")[0] + ".status")
            line.append(str(status) if value is None and status in ("INVALID", "UNKNOWN")
                        else num(value, c.digits))
        line += [num(_get(r, path), digits) if digits >= 0 else str(_get(r, path) or "—")
                 for _, path, digits in extra]
        if failures:
            line.append(str(r.get("measurement_failure") or ""))
        cells.append(line)
    print_table(title, cols, cells)
    for r in failures[:5]:
        err_console.print(failure_line(r), markup=False)
    if len(failures) > 5:
        err_console.print(f"... and {len(failures) - 5} more measurement failures", markup=False)


def exit_for_failures(rows: list[dict[str, Any]]) -> None:
    """Exit 1 with one line when every episode was a measurement failure."""
    if rows and all(r.get("measurement_failure") for r in rows):
        err_console.print(f"error: none of the {len(rows)} episode(s) could be measured (see the "
                          "reasons above); fix the cause and rerun with "
                          "--retry-measurement-failures", markup=False)
        raise typer.Exit(1)
