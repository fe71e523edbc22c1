"""How `agm stats summarize` prints its document: the fitted table, then every exclusion.

The document itself is built by `agentmetrology.results.build_summary`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from agentmetrology.report.terminal.glossary import glossary_line
from agentmetrology.report.terminal.stats_format import (
    Column,
    exclusion_lines,
    fits_whole,
    fitted_table,
    fmt,
    fmt_estimate_ci,
    print_lines,
)
from agentmetrology.results import describe


def _group_name(group: Mapping[str, str]) -> str:
    """Return 'agent=llm, task=t2' for a group key."""
    return ", ".join(f"{k}={v}" for k, v in group.items())


def _columns(doc: Mapping[str, Any]) -> list[Column]:
    """Return the summarize table's columns, highest priority kept longest."""
    params, names = doc["parameters"], doc["group_by"]
    return [
        Column("rank mean", priority=8, droppable=True),
        Column("rank worst", priority=12),
        *(Column(name, kind="name", justify="left", priority=11) for name in names),
        Column("n", priority=9, droppable=True),
        Column("mean", priority=12),
        Column("CI", priority=7, droppable=True),
        Column("worst", priority=12),
        Column(f"CVaR@{params['alpha']:g}", priority=6, droppable=True),
        Column(f"Rel@{params['tau']:g}", priority=5, droppable=True),
        Column("gap", priority=4, droppable=True),
    ]


def _rows(doc: Mapping[str, Any]) -> list[list[Text]]:
    """Return one row of cells per group, in the columns' order."""
    names = doc["group_by"]
    rows = []
    for g in doc["groups"]:
        moved = g["rank_mean"] != g["rank_worst"]
        rows.append(
            [
                Text(str(g["rank_mean"])),
                Text(str(g["rank_worst"]), style="bold yellow" if moved else ""),
                *(Text(g["group"][name]) for name in names),
                Text(str(g["n"])),
                Text(fmt(g["mean"]["value"])),
                Text(fmt_estimate_ci(g["mean"])),
                Text(fmt(g["worst"]["value"])),
                Text(fmt(g["cvar"]["value"])),
                Text(fmt(g["reliability"]["value"])),
                Text(fmt(g["gap"]["value"])),
            ]
        )
    return rows


def _caption(doc: Mapping[str, Any]) -> str:
    """Return what the intervals are: confidence, resamples and seed."""
    params = doc["parameters"]
    return (f"{params['confidence'] * 100:g}% percentile bootstrap, {params['resamples']} "
            f"resamples, analysis seed {params['analysis_seed']}")


def _summary_table(doc: Mapping[str, Any], console: Console) -> tuple[Table, list[str]]:
    """Return the summarize table fitted to the console, and the columns left out."""
    names = doc["group_by"]
    return fitted_table(
        console,
        _columns(doc),
        _rows(doc),
        title=Text(f"{doc['value']} by {', '.join(names)} (sorted by mean)"),
        caption=Text(_caption(doc)),
    )


def _group_lines(doc: Mapping[str, Any], console: Console) -> list[str]:
    """Return each group as one line of `header value` pairs: the layout when the table could
    not keep its names and numbers whole at this width (rich folded `0.250` into `0.2` over
    `50`, and cut names mid-word)."""
    columns, rows = _columns(doc), _rows(doc)
    names = set(doc["group_by"])
    lines = [f"{doc['value']} by {', '.join(doc['group_by'])} (sorted by mean): the table does "
             f"not fit width {console.width} with its names and numbers whole, so one line per "
             f"group; {_caption(doc)}"]
    for row in rows:
        key = ", ".join(f"{c.header}={t.plain}" for c, t in zip(columns, row, strict=True)
                        if c.header in names)
        lines.append(f"{key}: " + ", ".join(f"{c.header} {t.plain}" for c, t in
                                             zip(columns, row, strict=True)
                                             if c.header not in names))
    return lines


def print_summary(doc: Mapping[str, Any], console: Console) -> None:
    """Render the summarize document: the table (or one line per group where the table cannot
    keep its names and numbers whole), then every exclusion per group and reason."""
    dropped: list[str] = []
    if fits_whole(console, _columns(doc), _rows(doc)):
        table, dropped = _summary_table(doc, console)
        console.print(table)
        shown = [str(c.header) for c in table.columns]
    else:
        print_lines(console, _group_lines(doc, console))
        shown = [c.header for c in _columns(doc)]
    glossary = glossary_line(h for h in shown if h.startswith(("CVaR", "Rel", "gap")))
    rows = doc["rows"]
    # At 80 columns every glossary term can be dropped: then no line, never a blank one.
    lines = [glossary] if glossary else []
    lines += [f"Rel@tau: {doc['scale']['text']}",
             f"rows read {rows['read']}, used {rows['used']}, {describe(doc['excluded'])}"]
    # A group of 1 or 2 runs has no interval (stats.bootstrap): say why, never a dash alone.
    lines += [f"CI of {_group_name(g['group'])}: {g['mean']['interval_note']}"
              for g in doc["groups"] if g["mean"].get("interval_note")]
    lines += exclusion_lines(doc)
    for g in doc["groups"]:
        if g["excluded"]["count"]:
            lines.append(f"{_group_name(g['group'])}: {describe(g['excluded'])}")
    for g in doc["groups_without_values"]:
        lines.append(f"{_group_name(g['group'])}: no usable value, {describe(g['excluded'])}")
    if dropped:
        lines.append(
            f"not shown at width {console.width}: {', '.join(dropped)} "
            "(widen the terminal, set COLUMNS, or use --json)"
        )
    print_lines(console, lines)
