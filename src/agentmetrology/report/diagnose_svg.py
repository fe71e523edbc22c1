"""The diagnose figures: gaps with intervals on a signed axis, and MSR against VRG."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentmetrology.report.html import escape


@dataclass(frozen=True, slots=True)
class GapRow:
    """One row: label, the gap before and after rescoring, each with its interval (or None)."""

    label: str
    before: float
    before_ci: tuple[float, float] | None
    after: float | None
    after_ci: tuple[float, float] | None


def gap_chart(rows: Sequence[GapRow], title: str, width: int = 640, row_h: int = 28) -> str:
    """Return the gaps on [-1, 1] as inline SVG: dots with interval lines, before and after."""
    label_w, pad = 230, 16
    plot_w = width - label_w - pad

    def x(v: float) -> float:
        return label_w + (max(-1.0, min(1.0, v)) + 1.0) / 2.0 * plot_w

    height = len(rows) * row_h + 50
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'role="img" aria-label="{escape(title)}">',
           f'<text x="0" y="16" font-size="13" font-weight="600">{escape(title)}</text>',
           f'<line x1="{x(0):.1f}" y1="24" x2="{x(0):.1f}" y2="{height - 20}" stroke="#999"/>']
    for tick in (-1.0, -0.5, 0.0, 0.5, 1.0):
        out.append(f'<text x="{x(tick):.1f}" y="{height - 6}" font-size="10" '
                   f'text-anchor="middle">{tick:g}</text>')
    for i, r in enumerate(rows):
        y = 34 + i * row_h
        out.append(f'<text x="{label_w - 8}" y="{y + 4}" font-size="12" text-anchor="end">'
                   f'{escape(r.label)}</text>')
        for value, ci, dy, color in ((r.before, r.before_ci, -5, "#c0392b"),
                                     (r.after, r.after_ci, 5, "#2e86c1")):
            if value is None:
                continue
            if ci is not None:
                out.append(f'<line x1="{x(ci[0]):.1f}" y1="{y + dy}" x2="{x(ci[1]):.1f}" '
                           f'y2="{y + dy}" stroke="{color}" stroke-width="2"/>')
            out.append(f'<circle cx="{x(value):.1f}" cy="{y + dy}" r="4" fill="{color}"/>')
    out.append("</svg>")
    return "".join(out)


def msr_vrg_chart(points: Sequence[tuple[str, float, float]], title: str,
                  size: int = 360) -> str:
    """Return a scatter of (label, VRG on [-1, 1], MSR on [0, 1]) as inline SVG."""
    pad = 40

    def px(v: float) -> float:
        return pad + (max(-1.0, min(1.0, v)) + 1.0) / 2.0 * (size - 2 * pad)

    def py(v: float) -> float:
        return size - pad - max(0.0, min(1.0, v)) * (size - 2 * pad)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size + 160}" height="{size}" '
           f'role="img" aria-label="{escape(title)}">',
           f'<text x="0" y="16" font-size="13" font-weight="600">{escape(title)}</text>',
           f'<rect x="{pad}" y="{pad}" width="{size - 2 * pad}" height="{size - 2 * pad}" '
           'fill="none" stroke="#999"/>',
           f'<text x="{size / 2:.0f}" y="{size - 8}" font-size="11" text-anchor="middle">'
           'VRG (gap under mutation)</text>',
           f'<text x="12" y="{size / 2:.0f}" font-size="11" transform="rotate(-90 12 '
           f'{size / 2:.0f})" text-anchor="middle">MSR</text>']
    for label, vrg, msr in points:
        out.append(f'<circle cx="{px(vrg):.1f}" cy="{py(msr):.1f}" r="5" fill="#4c78a8"/>')
        out.append(f'<text x="{px(vrg) + 7:.1f}" y="{py(msr) + 4:.1f}" font-size="11">'
                   f'{escape(label)}</text>')
    out.append("</svg>")
    return "".join(out)
