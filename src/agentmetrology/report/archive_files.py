"""Write the files of `agm archive audit|compare|regrade` into their output folder.

The JSON written records the sha256 of each file rendered from it (`RENDERED`): `agm evidence
qualify` then knows a rendered file that was changed after it was written, whichever agm
rendered it (report.report_texts). It also records the build of agm that wrote it (`build`,
report.build_id), which `--recompute` compares first (report.recompute).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from agentmetrology.records.canonical import canonical_json
from agentmetrology.report.archive_report import render_archive_report
from agentmetrology.report.build_id import with_build

RENDERED = "rendered"  # the JSON's field: {file name: sha256 of the file as written}


def rendered_digests(texts: dict[str, str]) -> dict[str, str]:
    """Return the sha256 of each rendered text as written (UTF-8), by file name."""
    return {name: hashlib.sha256(text.encode("utf-8")).hexdigest()
            for name, text in sorted(texts.items())}


def _write(out_dir: Path, json_name: str, doc: dict[str, Any],
           texts: dict[str, str]) -> dict[str, Any]:
    bound = {**with_build(doc), RENDERED: rendered_digests(texts)}
    (out_dir / json_name).write_bytes(canonical_json(bound))
    for name, text in texts.items():
        (out_dir / name).write_text(text, encoding="utf-8")
    return bound


def write_archive_audit(doc: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    """Render an archive audit and write archive.json, report.md and report.html; return what
    archive.json holds (a report the number guard refuses raises NumberGuardError before
    anything is written)."""
    md, page = render_archive_report(with_build(doc))  # rendered from what is written
    return _write(out_dir, "archive.json", doc, {"report.md": md, "report.html": page})


def write_regrade(doc: dict[str, Any], md: str, out_dir: Path) -> dict[str, Any]:
    """Write a store's regrade as regrade.json and its rendered report.md; return what
    regrade.json holds."""
    return _write(out_dir, "regrade.json", doc, {"report.md": md})
