"""Tables and number formats of `agm stats`: numbers never abbreviated, columns fitted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from agentmetrology.stats.rounding import widened

P_FLOOR = 1e-4  # p-values below this print as "< 1e-4" (JSON keeps the number)


def fmt(value: float | None, digits: int = 3) -> str:
    """Format a number for a table: fixed point, scientific beyond 1e6, and significant digits
    for a nonzero value that fixed point would print as 0; None shows as a dash."""
    if value is None:
        return "-"
    if abs(value) >= 1e6:
        return f"{value:.{digits}e}"
    if value != 0 and abs(value) < 0.5 * 10.0**-digits:
        # 0.000 beside "different" or a rejecting p would read as no difference at all.
        return f"{value:.{digits}g}"
    return f"{value:.{digits}f}"


def fmt_ci(interval: Sequence[float] | None) -> str:
    """Format an interval as [lo, hi]."""
    return "-" if interval is None else f"[{fmt(interval[0])}, {fmt(interval[1])}]"


def fmt_within(value: float, margin: float) -> str:
    """Format an interval end beside a margin m: as `fmt` does, with more decimals where that
    would print it on the other side of +-m than the label reads it (ends inclusive, up to
    float rounding, as `stats.equivalence`)."""
    inside = abs(value) <= widened(margin)
    text = fmt(value)
    # -0.10004 printed as -0.100 beside margin 0.1 reads "inside" next to a label that is not
    # "equivalent"; 17 significant digits always recover the float itself.
    for digits in range(4, 18):
        if (abs(float(text)) <= margin) == inside:
            break
        text = f"{value:.{digits}f}"
    return text


def fmt_ci_within(interval: Sequence[float], margin: float) -> str:
    """Format an interval as [lo, hi], each end on the side of +-margin it lies (fmt_within)."""
    return f"[{fmt_within(interval[0], margin)}, {fmt_within(interval[1], margin)}]"


def fmt_estimate_ci(est: Mapping[str, Any]) -> str:
    """Format an estimate's interval as [lo, hi], or `no interval` where the statistics
    withheld it (too few units: its `interval_note` says why), else a dash."""
    if est.get("interval") is None and est.get("interval_note"):
        return "no interval"
    return fmt_ci(est.get("interval"))


def fmt_p(p: float | None, alpha: float = 0.05) -> str:
    """Format a p-value to 4 decimals, never as 0.0000: below 1e-4 it prints as '< 1e-4'; a
    p just below alpha gets the decimals that keep it below (0.049975, not 0.0500)."""
    if p is None:
        return "-"
    if p < P_FLOOR:
        return "< 1e-4"
    text = f"{p:.4f}"
    # 0.0500 beside "rejects at 0.05" reads as a contradiction; 17 digits recover the float
    for digits in range(5, 18):
        if not p < alpha <= float(text):
            break
        text = f"{p:.{digits}f}"
    return text


@dataclass(frozen=True)
class Column:
    """A table column: `priority` orders which columns go first when space runs out."""

    header: str
    kind: str = "number"  # "number" never wraps; "name" may wrap at spaces, never mid-word
    justify: str = "right"
    priority: int = 10
    droppable: bool = False


def _tokens(text: str) -> list[str]:
    """Return the whitespace-separated tokens of a cell (the units that must not split)."""
    return text.split() or [""]


def _needs(column: Column, cells: list[Text]) -> tuple[int, int]:
    """Return (minimum, natural) content width of a column."""
    texts = [column.header, *(c.plain for c in cells)]
    natural = max(cell_len(line) for t in texts for line in t.splitlines() or [""])
    header_word = max(cell_len(w) for w in _tokens(column.header))
    if column.kind == "number":
        # A number or an interval ("[0.412, 0.733]") is read whole: it never wraps.
        whole = max((cell_len(c.plain) for c in cells), default=1)
        return max(header_word, whole), natural
    # A name folds at spaces only: an identifier (task, agent, scorer) is never cut mid-word.
    longest = max((cell_len(w) for c in cells for w in _tokens(c.plain)), default=1)
    return max(header_word, longest, min(natural, 12)), natural


# Box-drawn first; when that does not fit, the same table without vertical rules (2 cells
# between columns instead of 3), and only then are low-priority columns left out.
_STYLES: tuple[dict[str, Any], ...] = (
    {},
    {
        "box": box.SIMPLE_HEAD,
        "show_edge": False,
        "padding": (0, 1),
        "collapse_padding": True,
        "pad_edge": False,
    },
)


def _overhead(console: Console, style: Mapping[str, Any], k: int) -> int:
    """Return the cells a table style adds around k columns (rules and padding)."""
    probe = Table(**style)
    for _ in range(k):
        probe.add_column(width=1)
    return console.measure(probe).maximum - k


def fits_whole(console: Console, columns: Sequence[Column], rows: Sequence[Sequence[Text]]) -> bool:
    """Return whether the columns that cannot be left out fit the console with every number
    and name whole (else rich folds them: `0.250` read as `0.2` over `50`)."""
    keep = [i for i, col in enumerate(columns) if not col.droppable]
    least = sum(_needs(columns[i], [row[i] for row in rows])[0] for i in keep)
    return least + _overhead(console, _STYLES[-1], len(keep)) <= console.width


def fitted_table(
    console: Console,
    columns: Sequence[Column],
    rows: Sequence[Sequence[Text]],
    **table_args: Any,
) -> tuple[Table, list[str]]:
    """Return a rich Table fitted into the console width, and the headers of columns left out."""
    width = console.width
    cells = [[row[i] for row in rows] for i in range(len(columns))]
    needs = [_needs(col, col_cells) for col, col_cells in zip(columns, cells, strict=True)]
    keep = list(range(len(columns)))

    def fits(style: Mapping[str, Any]) -> bool:
        return sum(needs[i][0] for i in keep) + _overhead(console, style, len(keep)) <= width

    style = next((st for st in _STYLES if fits(st)), _STYLES[-1])
    # Leave out the lowest-priority droppable columns until every kept minimum fits.
    while not fits(style):
        droppable = [i for i in keep if columns[i].droppable]
        if not droppable:
            break
        keep.remove(min(droppable, key=lambda i: (columns[i].priority, -i)))
    widths = {i: needs[i][0] for i in keep}
    spare = width - _overhead(console, style, len(keep)) - sum(widths.values())
    content = [max((cell_len(c.plain) for c in col_cells), default=0) for col_cells in cells]

    def wraps(i: int) -> int:
        """0 for names, 1 for cells that would wrap (e.g. an interval), 2 for headers only."""
        return 0 if columns[i].kind == "name" else 1 if content[i] > widths[i] else 2

    # Spare cells go first to names and wrapped cells, then to headers, by priority.
    for i in sorted(keep, key=lambda i: (wraps(i), -columns[i].priority, i)):
        grow = max(0, min(spare, needs[i][1] - widths[i]))
        widths[i] += grow
        spare -= grow
    table = Table(**style, **table_args)
    for i in keep:
        col = columns[i]
        table.add_column(col.header, justify=col.justify, width=widths[i], overflow="fold")  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*(row[i] for i in keep))
    dropped = [columns[i].header for i in range(len(columns)) if i not in keep]
    return table, dropped


def print_lines(console: Console, lines: Sequence[str]) -> None:
    """Print plain lines (never markup: names come from the user's file)."""
    for line in lines:
        console.print(Text(line))


def exclusion_lines(doc: Mapping[str, Any]) -> list[str]:
    """Return one line per exclusion reason and coercion, so no row disappears silently."""
    lines = []
    for reason, info in doc["excluded"]["by_reason"].items():
        numbers = ", ".join(str(n) for n in info["lines"])
        more = " ..." if info["count"] > len(info["lines"]) else ""
        noun = "row" if info["count"] == 1 else "rows"
        text = f"  {reason}: {info['count']} {noun} (line(s) {numbers}{more})"
        if info.get("details"):
            text += "; " + ", ".join(f"{n} {d}" for d, n in info["details"].items())
        lines.append(text)
    for reason, info in doc["coerced"]["by_reason"].items():
        numbers = ", ".join(str(n) for n in info["lines"])
        more = " ..." if info["count"] > len(info["lines"]) else ""
        lines.append(f"coerced {info['count']} value(s): {reason} (line(s) {numbers}{more})")
    return lines
