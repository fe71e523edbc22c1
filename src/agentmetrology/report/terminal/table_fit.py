"""Tables that fit the terminal: numbers are never cut; low-priority columns go first.

Rich shrinks a table that is too wide by truncating cells (`0.…`); a measurement tool must
never show a number it has cut. Columns are dropped lowest priority first until the table fits,
and the caption says which were left out (the `--json` output always has everything).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table
from rich.text import Text

CELL_PADDING = 3  # rich's default: one space each side plus the separator


@dataclass(frozen=True, slots=True)
class Col:
    """A column: header, priority (higher stays longer), numeric (right-aligned, never cut).

    Only `wrap` columns (free text) may fold onto several lines, at spaces only: they are never
    narrower than their longest word, so names inside them stay whole.
    """

    header: str
    priority: int = 1
    numeric: bool = False
    wrap: bool = False


TEXT_MIN = 12  # a text column can fold down to this width (or its header's)


def _longest_word(cells: list[str]) -> int:
    """Return the longest space-separated word: a wrapped column is never narrower (no
    identifier is ever cut mid-word)."""
    return max((len(w) for c in cells for w in c.split()), default=0)


def _natural(col: Col, cells: list[str]) -> int:
    return max([len(col.header), *(len(c) for c in cells)]) + CELL_PADDING


def _needed(col: Col, cells: list[str]) -> int:
    """Return the width a column needs: all of it for numbers, a foldable minimum for text."""
    natural = _natural(col, cells)
    if not col.wrap:
        return natural
    return min(natural, max(len(col.header), TEXT_MIN, _longest_word(cells)) + CELL_PADDING)


def fit_table(console: Console, title: str | Text, cols: Sequence[Col],
              rows: Sequence[Sequence[str]], full: str = "--json", markup: bool = True) -> Table:
    """Return a table of the columns that fit `console`'s width, dropping low priority first
    (the caption names them and `full`, where every column is); `markup=False` shows cells
    literally (text from an archive, never interpreted as rich markup). The title, headers and
    caption are always literal: they are names (a dict scorer's key column `scorer[security]`
    read as markup printed as `scorer`)."""
    keep = list(range(len(cols)))
    cells = {i: [r[i] for r in rows] for i in keep}
    while len(keep) > 1 and sum(_needed(cols[i], cells[i]) for i in keep) + 1 > console.width:
        keep.remove(min(keep, key=lambda i: (cols[i].priority, -i)))
    dropped = [cols[i].header for i in range(len(cols)) if i not in keep]
    caption = f"not shown at this width: {', '.join(dropped)} (see {full})" if dropped else None
    table = Table(title=Text(title, style="table.title") if isinstance(title, str) else title,
                  caption=Text(caption, style="table.caption") if caption else None)
    for i in keep:
        c = cols[i]
        if not c.wrap:
            table.add_column(Text(c.header), justify="right" if c.numeric else "left",
                             no_wrap=True,
                             min_width=_natural(c, cells[i]) - CELL_PADDING)
        else:
            table.add_column(Text(c.header), overflow="fold",  # fold only past min_width
                             min_width=_needed(c, cells[i]) - CELL_PADDING)
    for r in rows:
        table.add_row(*(r[i] if markup else Text(r[i]) for i in keep))
    return table
