"""The SVG of one degradation curve: mean line, seeded bootstrap band, every per-seed point."""

from __future__ import annotations

from typing import Any

from agentmetrology.report.html import escape


def _band(pt: dict[str, Any]) -> bool:
    """Return whether a dose has a band to draw (none below 3 seeds: stats.bootstrap)."""
    return bool(pt["band"] and pt["band"].get("interval"))


def curve_svg(c: dict[str, Any], width: int = 420, height: int = 220) -> str:
    """Return a self-contained SVG of a curve cell (formatting only; no new numbers)."""
    pts = c["curve"]["points"]
    vals = [q["value"] for pt in pts for q in pt["points"]]
    vals += [v for pt in pts if _band(pt) for v in pt["band"]["interval"]]
    lo, hi = (min(vals), max(vals)) if vals else (0.0, 1.0)
    lo, hi = (lo - 0.5, hi + 0.5) if hi == lo else (lo, hi)
    pad = 36

    def x(dose: float) -> float:
        return pad + dose * (width - 2 * pad)

    def y(v: float) -> float:
        return height - pad - (v - lo) / (hi - lo) * (height - 2 * pad)

    title = f"{c['target']} {c['level']} {c['outcome']}"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'role="img" aria-label="{escape(title)}">',
           f'<text x="0" y="14" font-size="12" font-weight="600">{escape(title)}</text>',
           f'<rect x="{pad}" y="{pad}" width="{width - 2 * pad}" height="{height - 2 * pad}" '
           'fill="none" stroke="#999"/>']
    band = [pt for pt in pts if _band(pt)]
    if band:
        upper = " ".join(f"{x(pt['dose']):.1f},{y(pt['band']['interval'][1]):.1f}" for pt in band)
        lower = " ".join(f"{x(pt['dose']):.1f},{y(pt['band']['interval'][0]):.1f}"
                         for pt in reversed(band))
        out.append(f'<polygon points="{upper} {lower}" fill="#4c78a8" fill-opacity="0.2"/>')
    for pt in pts:
        for q in pt["points"]:
            out.append(f'<circle cx="{x(pt["dose"]):.1f}" cy="{y(q["value"]):.1f}" r="2.5" '
                       'fill="#555" fill-opacity="0.5"/>')
    line = " ".join(f"{x(pt['dose']):.1f},{y(pt['mean']):.1f}" for pt in pts
                    if pt["mean"] is not None)
    out.append(f'<polyline points="{line}" fill="none" stroke="#4c78a8" stroke-width="2"/>')
    out.append("</svg>")
    return "".join(out)
