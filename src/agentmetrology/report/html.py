"""Primitives for self-contained HTML reports: page shell, escaped text and tables, SVG charts.

Everything is inline (CSS in a <style> element, charts as inline <svg>), so a report opens
offline with no network access, no external fonts and no scripts (its own
Content-Security-Policy forbids them). Every function returns a
string of HTML; every piece of text passed in is escaped here, so callers pass plain text.
Inline `code spans` in prose become <code> elements.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;
max-width:60rem;padding:0 1rem;color:#1b1f24;line-height:1.45}
h1{font-size:1.6rem;border-bottom:2px solid #d0d7de;padding-bottom:.3rem}
h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #d0d7de}
h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.8rem 0;font-size:.9rem}
th,td{border:1px solid #d0d7de;padding:.25rem .55rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}
td.num{text-align:right;font-variant-numeric:tabular-nums}
caption{caption-side:top;text-align:left;font-weight:600;padding:.2rem 0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em;
background:#f6f8fa;padding:0 .2em;border-radius:3px}
.note{color:#57606a;font-size:.9rem}
figure{margin:1rem 0}
figcaption{font-size:.85rem;color:#57606a}
""".strip()

# A code span as `blocks.code` writes it (CommonMark): a run of backticks, the text, the same
# run again; a run of another length inside is text. `` alone is the empty span.
_CODE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)|(?<!`)``(?!`)", re.S)
_NUMERIC = re.compile(r"^-?\d+(?:\.\d+)?%?$")


def escape(text: object) -> str:
    """Return text escaped for HTML element content and attribute values."""
    return html.escape(str(text), quote=True)


def inline(text: str) -> str:
    """Return escaped text with `code spans` turned into <code> elements."""
    out, at = [], 0
    for m in _CODE.finditer(text):
        body = m.group(2) or ""
        if body[:1] == body[-1:] == " " and body.strip():  # the padding `code` added
            body = body[1:-1]
        out += [escape(text[at:m.start()]), f"<code>{escape(body)}</code>"]
        at = m.end()
    return "".join(out) + escape(text[at:])


# A report is opened from disk (file://), where no server sends a policy: the document states
# its own. It runs no script and loads nothing, so text from an archive that slipped through
# unescaped still could not run or send anything anywhere.
CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
       "form-action 'none'")


def page(title: str, body: str, lang: str = "en") -> str:
    """Return a complete self-contained HTML document with the inline stylesheet."""
    return (f'<!DOCTYPE html>\n<html lang="{escape(lang)}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(title)}</title>\n<style>\n{CSS}\n</style>\n</head>\n"
            f"<body>\n{body}\n</body>\n</html>\n")


def heading(text: str, level: int = 2) -> str:
    """Return an <hN> heading (level clamped to 1..6)."""
    n = min(6, max(1, level))
    return f"<h{n}>{inline(text)}</h{n}>"


def paragraph(text: str, css_class: str | None = None) -> str:
    """Return a <p> paragraph; `css_class` e.g. 'note' for secondary text."""
    cls = f' class="{escape(css_class)}"' if css_class else ""
    return f"<p{cls}>{inline(text)}</p>"


def bullet_list(items: Sequence[str]) -> str:
    """Return a <ul> list of inline-formatted items."""
    return "<ul>" + "".join(f"<li>{inline(i)}</li>" for i in items) + "</ul>"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]],
          caption: str | None = None) -> str:
    """Return an escaped <table>; cells that look numeric are right-aligned."""
    head = "".join(f"<th>{inline(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for cell in row:
            text = "" if cell is None else str(cell)
            cls = ' class="num"' if _NUMERIC.match(text) else ""
            cells.append(f"<td{cls}>{inline(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption>{inline(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def figure(svg: str, caption: str = "") -> str:
    """Return a <figure> wrapping an inline SVG, with a caption when one is given."""
    cap = f"<figcaption>{inline(caption)}</figcaption>" if caption else ""
    return f"<figure>{svg}{cap}</figure>"


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar: label, value, the text printed next to it, and an optional fill colour."""

    label: str
    value: float
    text: str
    color: str = "#4c78a8"


def bar_chart(bars: Sequence[Bar], title: str, max_value: float | None = None,
              width: int = 560, bar_height: int = 22) -> str:
    """Return a horizontal bar chart as inline SVG (values scaled to `max_value` or the max)."""
    label_w, text_w, gap = 170, 90, 6
    top = max((b.value for b in bars), default=0.0)
    scale_max = max_value if max_value is not None else (top or 1.0)
    plot_w = width - label_w - text_w
    height = len(bars) * (bar_height + gap) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'role="img" aria-label="{escape(title)}">',
           f'<text x="0" y="16" font-size="13" font-weight="600">{escape(title)}</text>']
    for i, b in enumerate(bars):
        y = 26 + i * (bar_height + gap)
        w = 0.0 if scale_max <= 0 else max(0.0, min(1.0, b.value / scale_max)) * plot_w
        out.append(f'<text x="{label_w - 6}" y="{y + bar_height * 0.7:.1f}" font-size="12" '
                   f'text-anchor="end">{escape(b.label)}</text>')
        out.append(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_height}" '
                   f'fill="{escape(b.color)}"/>')
        out.append(f'<text x="{label_w + w + 4:.1f}" y="{y + bar_height * 0.7:.1f}" '
                   f'font-size="12">{escape(b.text)}</text>')
    out.append("</svg>")
    return "".join(out)

