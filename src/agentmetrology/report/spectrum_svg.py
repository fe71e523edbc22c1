"""The reliability spectrum figure: box per target with mean, worst case and CVaR marked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentmetrology.report.html import escape


@dataclass(frozen=True, slots=True)
class SpectrumRow:
    """One target: quartiles (min, q1, median, q3, max), mean, worst and CVaR."""

    label: str
    quartiles: tuple[float, float, float, float, float]
    mean: float
    worst: float
    cvar: float


def spectrum_chart(rows: Sequence[SpectrumRow], title: str, width: int = 640,
                   row_h: int = 30) -> str:
    """Return the box plots on [0, 1] as inline SVG, rows in the given order (sorted by mean)."""
    label_w, pad = 190, 16
    plot_w = width - label_w - pad

    def x(v: float) -> float:
        return label_w + max(0.0, min(1.0, v)) * plot_w

    height = len(rows) * row_h + 70
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'role="img" aria-label="{escape(title)}">',
           f'<text x="0" y="16" font-size="13" font-weight="600">{escape(title)}</text>']
    for i, r in enumerate(rows):
        y = 28 + i * row_h
        mid = y + (row_h - 8) / 2
        lo, q1, med, q3, hi = r.quartiles
        out += [
            f'<text x="{label_w - 8}" y="{mid + 4:.1f}" font-size="12" text-anchor="end">'
            f'{escape(r.label)}</text>',
            f'<line x1="{x(lo):.1f}" x2="{x(hi):.1f}" y1="{mid:.1f}" y2="{mid:.1f}" '
            f'stroke="#57606a"/>',
            f'<rect x="{x(q1):.1f}" y="{y:.1f}" width="{max(x(q3) - x(q1), 1.0):.1f}" '
            f'height="{row_h - 8}" fill="#dbe7f3" stroke="#4c78a8"/>',
            f'<line x1="{x(med):.1f}" x2="{x(med):.1f}" y1="{y:.1f}" y2="{y + row_h - 8:.1f}" '
            f'stroke="#1b1f24" stroke-width="2"/>',
            f'<circle cx="{x(r.mean):.1f}" cy="{mid:.1f}" r="4" fill="#1b1f24">'
            f'<title>mean</title></circle>',
            f'<path d="M{x(r.worst) - 5:.1f},{mid - 5:.1f} l10,10 m0,-10 l-10,10" '
            f'stroke="#c62828" stroke-width="2"><title>worst case</title></path>',
            f'<rect x="{x(r.cvar) - 4:.1f}" y="{mid - 4:.1f}" width="8" height="8" '
            f'fill="#ef6c00"><title>CVaR</title></rect>',
        ]
    axis_y = 28 + len(rows) * row_h + 8
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append(f'<text x="{x(tick):.1f}" y="{axis_y + 4}" font-size="11" '
                   f'text-anchor="middle">{tick:g}</text>')
    ly = axis_y + 24
    out += [f'<circle cx="{label_w + 6}" cy="{ly - 4}" r="4" fill="#1b1f24"/>',
            f'<text x="{label_w + 14}" y="{ly}" font-size="11">mean</text>',
            f'<path d="M{label_w + 71},{ly - 9} l10,10 m0,-10 l-10,10" stroke="#c62828" '
            f'stroke-width="2"/>',
            f'<text x="{label_w + 86}" y="{ly}" font-size="11">worst case</text>',
            f'<rect x="{label_w + 161}" y="{ly - 8}" width="8" height="8" fill="#ef6c00"/>',
            f'<text x="{label_w + 174}" y="{ly}" font-size="11">CVaR</text>',
            "</svg>"]
    return "".join(out)
