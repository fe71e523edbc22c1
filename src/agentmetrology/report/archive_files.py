"""Write the files of `agm archive audit|compare|regrade` into their output folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology.records.canonical import canonical_json
from agentmetrology.report.archive_report import render_archive_report


def write_archive_audit(doc: dict[str, Any], out_dir: Path) -> None:
    """Render an archive audit and write archive.json, report.md and report.html; a report the
    number guard refuses raises NumberGuardError before anything is written."""
    md, page = render_archive_report(doc)
    (out_dir / "archive.json").write_bytes(canonical_json(doc))
    (out_dir / "report.md").write_text(md, encoding="utf-8")
    (out_dir / "report.html").write_text(page, encoding="utf-8")


def write_regrade(doc: dict[str, Any], md: str, out_dir: Path) -> None:
    """Write a store's regrade as regrade.json and its rendered report.md."""
    (out_dir / "regrade.json").write_bytes(canonical_json(doc))
    (out_dir / "report.md").write_text(md, encoding="utf-8")
