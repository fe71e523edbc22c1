"""Render an audit or a census and write its files; a refused report or an unwritable folder
is a UserError in one line (nothing half-written is claimed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentmetrology.audit.output import write_audit, write_json
from agentmetrology.records.errors import UserError
from agentmetrology.report.numberguard import NumberGuardError


def write_files(doc: Any, out: Path,
                   render: Callable[[Any], tuple[str, str]]) -> dict[str, Path]:
    """Render an audit (Markdown, HTML) and write its four artifacts; return their paths."""
    try:
        markdown, html = render(doc)
    except NumberGuardError as exc:
        raise UserError(f"report refused by the number guard: {exc}") from exc
    try:
        return write_audit(out, doc, markdown, html)
    except OSError as exc:
        raise UserError(f"cannot write the audit into {out}: {exc.strerror or exc}") from exc


def write_census(doc: dict[str, Any], out: Path) -> None:
    """Write census.json, report.md, report.html and census.svg into `out`."""
    from agentmetrology.report.census_report import render_census_report

    try:
        markdown, html, svg = render_census_report(doc)
    except NumberGuardError as exc:
        raise UserError(f"report refused by the number guard: {exc}") from exc
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_json(out / "census.json", doc)
        for name, text in (("report.md", markdown), ("report.html", html),
                           ("census.svg", svg)):
            (out / name).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write the census into {out}: {exc.strerror or exc}") from exc
