"""A report's rendered files against its JSON, for `agm evidence qualify`.

`report.md` and `report.html` of an archive audit or a store regrade are rendered from the JSON
alone (archive_report), byte for byte; a rendered file that is not what its JSON renders now
was edited after it was written, and the numbers a reader sees there are not the qualified
ones. Before, a report.md whose numbers were replaced still qualified: only the JSON's score
rows and binding were checked.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentmetrology.archive.report_qualify import MAX_REPORT_BYTES, qualify_report
from agentmetrology.edges.files import FileRefused, read_text
from agentmetrology.report.archive_report import render_archive_report, render_regrade_report
from agentmetrology.store.qualify import INVALID


def _audit_texts(doc: dict[str, Any]) -> dict[str, str]:
    md, html = render_archive_report(doc)
    return {"report.md": md, "report.html": html}


def _regrade_texts(doc: dict[str, Any]) -> dict[str, str]:
    return {"report.md": render_regrade_report(doc)}


RENDERERS: dict[str, Callable[[dict[str, Any]], dict[str, str]]] = {
    "archive.json": _audit_texts, "regrade.json": _regrade_texts}


def _problem(kind: str, detail: str) -> dict[str, str]:
    return {"kind": kind, "result": INVALID, "detail": detail}


def text_problems(path: Path, doc: dict[str, Any]) -> list[dict[str, str]]:
    """Return the problems of the rendered files beside the report JSON at `path` (none for a
    kind whose files are not rendered from its JSON alone, or a file that is absent)."""
    render = RENDERERS.get(path.name)
    present = [n for n in ("report.md", "report.html") if (path.parent / n).exists()]
    if render is None or not present:
        return []
    try:
        texts = render(doc)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        return [_problem("report_text_changed", f"{path.name} no longer renders a report "
                                                f"({type(exc).__name__}: {exc}): edited")]
    problems = []
    for name in present:
        if name not in texts:
            continue
        try:
            same = read_text(path.parent / name, MAX_REPORT_BYTES) == texts[name]
        except (OSError, ValueError, FileRefused):
            same = False
        if not same:
            problems.append(_problem("report_text_changed", f"{name} is not what {path.name} "
                                     f"renders (edited after it was written); render it again "
                                     f"with the command that wrote it"))
    return problems


def qualify_report_files(path: Path, doc: dict[str, Any], store: Path) -> dict[str, Any]:
    """Return the qualification of a report against its store now, its rendered files
    included (archive.report_qualify.qualify_report plus text_problems)."""
    return qualify_report(path, doc, store, text_problems(path, doc))
