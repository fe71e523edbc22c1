"""Report blocks: one builder for every report (Markdown and HTML from the same blocks).

A report is a list of blocks (heading, paragraph, note, list, table, chart, figure); numbers
are formatted by the number guard, so the guard can check every text before anything is
written, and table cells are escaped the same way in every report. Every text is rendered
through `edges.display.printable`: control characters from archived content (escape
sequences, bidi overrides) appear as visible escapes, never as terminal commands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from agentmetrology.edges.display import printable
from agentmetrology.report import html as H
from agentmetrology.report.numberguard import NumberGuard
from agentmetrology.store.qualify import banner


@dataclass(slots=True)
class Block:
    """One report block: heading, paragraph, note, list, table or chart."""

    kind: str
    text: str = ""
    level: int = 2
    items: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    bars: list[H.Bar] = field(default_factory=list)
    max_value: float | None = None
    svg: str = ""

    def texts(self) -> list[str]:
        """Return every human-readable string of the block (what the guard checks)."""
        out = [self.text, *self.items, *self.headers, *(c for r in self.rows for c in r)]
        return out + [b.text for b in self.bars] + [b.label for b in self.bars]


_BACKTICKS = re.compile("`+")
# What makes text from elsewhere read as Markdown in prose: a line break (a new block: a
# heading, a forged row), a code span, raw HTML or an autolink, a link, emphasis, an escape.
_ACTIVE = re.compile(r"[\n\r`<\[*\\]")


def code(text: Any) -> str:
    """Return `text` as a Markdown code span (identifiers: tasks, targets, digests).

    The fence is one backtick longer than the longest run inside (CommonMark), so a backtick in
    a name cannot close the span early and let the rest of it be read as Markdown; a space pads
    a text that starts or ends with a backtick (or with spaces at both ends, which CommonMark
    strips), so the span holds the text as it is.
    """
    s = str(text)
    fence = "`" * (max(map(len, _BACKTICKS.findall(s)), default=0) + 1)
    pad = " " if s[:1] == "`" or s[-1:] == "`" or (s[:1] == s[-1:] == " " and s.strip()) else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def prose(text: Any) -> str:
    """Return text from elsewhere (a reason, an exception's message) for a sentence: as it is
    when nothing in it is Markdown, else as a code span, so it is read, never rendered."""
    s = str(text)
    return code(s) if _ACTIVE.search(s) else s


class Doc:
    """Collects blocks; `g` formats numbers exactly as the guard expects them."""

    def __init__(self, g: NumberGuard) -> None:
        self.g = g
        self.blocks: list[Block] = []

    def h(self, text: str, level: int = 2) -> None:
        self.blocks.append(Block("h", text, level=level))

    def p(self, text: str) -> None:
        self.blocks.append(Block("p", text))

    def note(self, text: str) -> None:
        self.blocks.append(Block("note", text))

    def evidence_banner(self, evidence: dict[str, Any] | None) -> None:
        """Add the loud banner of an unqualified store (nothing when it qualifies or is None).

        Every report built from an evidence store calls this first, with the qualification
        the document carries (`evidence`), so the banner is the same everywhere.
        """
        text = banner(evidence)
        if text is not None:
            self.blocks.append(Block("banner", text))

    def bullets(self, items: list[str]) -> None:
        """Add a bulleted list."""
        self.blocks.append(Block("list", items=items))

    def table(self, headers: list[str], rows: list[list[Any]], caption: str = "") -> None:
        self.blocks.append(Block("table", caption, headers=headers,
                                 rows=[[self.cell(c) for c in r] for r in rows]))

    def chart(self, title: str, bars: list[H.Bar], max_value: float | None = None) -> None:
        self.blocks.append(Block("chart", title, bars=bars, max_value=max_value))

    def figure(self, svg: str, caption: str) -> None:
        """Add an inline SVG figure (HTML only) with its caption (checked by the guard)."""
        self.blocks.append(Block("figure", caption, svg=svg))

    def money(self, value: float | None) -> str:
        """Return a cost with significant digits (costs span many scales)."""
        return self.g.sig(value)

    def estimate(self, est: dict[str, Any] | None) -> str:
        """Return an estimate as `value [lo, hi]` (no interval: the value, and `(no interval)`
        where one was withheld, `interval_note` saying why; none: n/a)."""
        if not est:
            return "n/a"
        iv = est.get("interval")
        if not iv:
            return self.g.fmt(est["value"]) + (" (no interval)" if est.get("interval_note")
                                               else "")
        return f"{self.g.fmt(est['value'])} [{self.g.fmt(iv[0])}, {self.g.fmt(iv[1])}]"

    def cell(self, value: Any) -> str:
        if value is None:
            return "n/a"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, int | float):
            return self.g.fmt(value)
        return str(value)


def _printable(b: Block) -> Block:
    """Return the block with every text's control characters shown as escapes (archive text)."""
    return replace(b, text=printable(b.text), items=[printable(i) for i in b.items],
                   headers=[printable(h) for h in b.headers],
                   rows=[[printable(c) for c in r] for r in b.rows],
                   bars=[replace(x, label=printable(x.label), text=printable(x.text))
                         for x in b.bars])


def _one_line(text: str) -> str:
    return text.replace("\n", "\\n")


def _one_line_block(b: Block) -> Block:
    """Return the block with each line break shown as `\\n`: in Markdown every text of a block
    is one line (a table row, a paragraph, a list item), and only text from elsewhere (a task
    id, a model, a reason) holds one. Kept, it broke the table's row and a blank line ended the
    paragraph, so what followed was read as the report's own Markdown (a heading of its
    choosing). HTML shows a line break inside a text as a space, so it keeps it."""
    return replace(b, text=_one_line(b.text), items=[_one_line(i) for i in b.items],
                   headers=[_one_line(h) for h in b.headers],
                   rows=[[_one_line(c) for c in r] for r in b.rows])


def to_markdown(blocks: list[Block]) -> str:
    """Return Markdown for the blocks (charts are HTML-only; a figure leaves its caption).

    A cell's `|` is escaped (GFM reads `\\|` as a pipe inside a code span too), so no text
    adds a column."""
    out: list[str] = []
    for b in (_one_line_block(_printable(x)) for x in blocks):
        if b.kind == "h":
            out.append("#" * b.level + " " + b.text)
        elif b.kind in ("p", "note"):
            out.append(b.text if b.kind == "p" else f"_{b.text}_")
        elif b.kind == "banner":
            out.append(f"> **{b.text}**")
        elif b.kind == "list":
            out.append("\n".join(f"- {i}" for i in b.items))
        elif b.kind == "figure":
            out.append(f"*{b.text}* (figure in report.html)")
        elif b.kind == "table":
            rows = [b.headers, ["---"] * len(b.headers), *b.rows]
            cap = f"{b.text}\n\n" if b.text else ""
            out.append(cap + "\n".join("| " + " | ".join(c.replace("|", "\\|") for c in r)
                                       + " |" for r in rows))
    return "\n\n".join(out) + "\n"


def to_html(blocks: list[Block], title: str) -> str:
    """Return a self-contained HTML page for the blocks."""
    parts: list[str] = []
    for b in map(_printable, blocks):
        if b.kind == "h":
            parts.append(H.heading(b.text, b.level))
        elif b.kind in ("p", "note"):
            parts.append(H.paragraph(b.text, "note" if b.kind == "note" else None))
        elif b.kind == "banner":
            parts.append(H.paragraph(f"**{b.text}**", "banner"))
        elif b.kind == "list":
            parts.append(H.bullet_list(b.items))
        elif b.kind == "table":
            parts.append(H.table(b.headers, b.rows, b.text or None))
        elif b.kind == "chart":
            parts.append(H.figure(H.bar_chart(b.bars, b.text, b.max_value)))
        elif b.kind == "figure":
            parts.append(H.figure(b.svg, b.text))
    return H.page(title, "\n".join(parts))
