"""What `agm run`, `agm envs`, `agm tasks` and `agm score` print: tables that fit the terminal,
the run's summary under it, and the lines naming measurement failures.

Scores come from the result rows the run wrote (`--json` prints the same rows); the summary's
numbers from `run.summary`. A missing value shows as an em dash, never as a number.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console

from agentmetrology.records.assessment import Assessment
from agentmetrology.records.environment import Column, EnvSpec
from agentmetrology.records.verdict import n_counted
from agentmetrology.report.money import money
from agentmetrology.report.terminal.table_fit import Col, fit_table

if TYPE_CHECKING:  # the summary's numbers (numpy) are imported only when a run has many rows
    from agentmetrology.run.demo import DemoRow
    from agentmetrology.run.summary import RunCell

REPEAT_COLUMN = (Col("repeat", 7, True), "repeat", 0)  # the table column of --epochs runs
COST_COLUMN = (Col("cost", 5, True), "cost_text", -1)  # LLM runs
FAILURE_LINES = 5  # measurement failures named on stderr under a table; the rest counted


def print_table(console: Console, title: str, cols: list[Col], cells: list[list[str]]) -> None:
    """Print a table that fits `console` (its width is read when it is made)."""
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
    return "unknown" if row.get("cost") is None else money(row["cost"])


def failure_line(row: dict[str, Any]) -> str:
    """Return the line naming a measurement failure's episode (its repeat, with --epochs) and
    why it could not be measured."""
    again = f" repeat {row['repeat']}" if "repeat" in row else ""
    return f"measurement failure: {row['task']} seed {row['seed']}{again}: " \
           f"{row['measurement_failure']}"


def _get(row: dict[str, Any], path: str) -> Any:
    value: Any = row
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def print_rows(console: Console, err: Console, spec: EnvSpec, rows: list[dict[str, Any]],
               title: str, extra: tuple[tuple[Col, str, int], ...] = ()) -> None:
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
    print_table(console, title, cols, cells)
    for r in failures[:FAILURE_LINES]:
        err.print(failure_line(r), markup=False)
    if len(failures) > FAILURE_LINES:
        err.print(f"... and {len(failures) - FAILURE_LINES} more measurement failures",
                  markup=False)


SUMMARY_COLS = [Col("agent", 9), Col("level", 9), Col("n", 8, True), Col("mean", 9, True),
                Col("95% CI", 6, True), Col("worst", 7, True), Col("excluded", 8, True)]


def print_run_summary(console: Console, path: tuple[str, str], cells: list[RunCell]) -> None:
    """Print the per agent x level summary of the outcome scorer (`path`: label, field)."""
    from agentmetrology.stats.bootstrap import DEFAULT_RESAMPLES

    rows = []
    withheld: dict[str, list[str]] = {}  # why an interval was withheld -> the cells it was
    for c in cells:
        s = c.summary
        if s is None:
            rows.append([c.agent, c.level, "0", "—", "—", "—", str(c.excluded)])
            continue
        ci = s.mean.interval
        if ci is None and s.mean.interval_note:  # 1 or 2 measured episodes (stats.bootstrap)
            withheld.setdefault(s.mean.interval_note, []).append(f"{c.agent} at {c.level}")
        rows.append([c.agent, c.level, str(s.n), f"{s.mean.value:.3f}",
                     ("no interval" if s.mean.interval_note else "—") if ci is None else
                     f"[{ci[0]:.3f}, {ci[1]:.3f}]",
                     f"{s.worst.value:.3f}", str(c.excluded)])
    label, field = path
    console.print(fit_table(console, f"summary: {label}.{field} (the outcome scorer)",
                            SUMMARY_COLS, rows, markup=False))
    console.print(f"mean over measured episodes, 95% CI: percentile bootstrap "
                  f"({DEFAULT_RESAMPLES} resamples, seed 0); worst: the lowest measured "
                  "episode; excluded: measurement failures, never scored", markup=False,
                  emoji=False)
    for note, where in withheld.items():
        console.print(f"95% CI of {', '.join(where)}: {note}", markup=False, emoji=False)


def print_envs(console: Console, rows: list[dict[str, Any]]) -> None:
    """Print the registered environments (a broken entry point's row says its error)."""
    cols = [Col("name", 9), Col("version", 5), Col("tasks", 6, True), Col("levels", 4),
            Col("scorers", 8, wrap=True), Col("description", 2, wrap=True)]
    cells = [[r["name"], r.get("version", "—"), str(r.get("tasks", "—")),
              ",".join(r.get("levels", [])), "; ".join(r.get("scorers", [])),
              r.get("description") or r.get("error", "")] for r in rows]
    print_table(console, "Environments", cols, cells)


def print_tasks(console: Console, env: str, rows: list[dict[str, Any]]) -> None:
    """Print an environment's task table: every column but the description, ids first."""
    keys = [k for k in rows[0] if k != "description"] if rows else ["task_id"]
    cols = [Col(k, 9 if k == "task_id" else 3,
                all(isinstance(r.get(k), int | float) for r in rows)) for k in keys]
    cells = [[str(r.get(k, "")) for k in keys] for r in rows]
    print_table(console, f"{env} tasks", cols, cells)


def print_scores(console: Console, title: str, spec: EnvSpec,
                 assessments: Sequence[Assessment]) -> None:
    """Print each scorer's status, score and components for one submission, then its reasons."""
    cols = [Col("scorer", 9), Col("status", 8), Col("score", 9, True),
            Col("details", 1, wrap=True)]
    cells = [[s.name, a.status, num(a.score), ", ".join(
        f"{k}={num(v, 3) if isinstance(v, float) else v}" for k, v in a.components.items())]
        for s, a in zip(spec.scorers, assessments, strict=True)]
    print_table(console, title, cols, cells)
    for a in assessments:
        for reason in a.reasons:
            console.print(f"  - {a.scorer}: {reason}", markup=False)


DEMO_COLS = [Col("agent", 9), Col("GT F1 mean", 8, True), Col("GT F1 worst", 7, True),
             Col("judge mean", 6, True), Col("judge worst", 5, True)]


def print_demo(console: Console, rows: list[DemoRow], tasks: int, seeds: int) -> None:
    """Print the demonstration: per scripted behaviour, ground-truth F1 beside the judge."""
    cells = [[r.agent, f"{r.f1_mean:.3f}", f"{r.f1_worst:.3f}", f"{r.judge_mean:.1f}",
              f"{r.judge_worst:.1f}"] for r in rows]
    title = (f"Scripted behaviours at L2 on {n_counted(tasks, 'tasks')} x "
             f"{n_counted(seeds, 'seeds')}: ground truth vs the shape judge (0-100)")
    console.print(fit_table(console, title, DEMO_COLS, cells))
