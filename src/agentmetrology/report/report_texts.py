"""A report's rendered files against its JSON, for `agm evidence qualify`.

`report.md` and `report.html` of an archive audit (`report.md` of a store regrade) are rendered
from the JSON beside them, which records the sha256 of each as it was written (`RENDERED`,
report.archive_files). A rendered file whose bytes no longer hash to what the JSON records was
changed after it was written: the numbers a reader sees there are not the qualified ones
(`report_text_changed`). Before, a report.md whose numbers were replaced still qualified: only
the JSON's score rows and binding were checked.

The JSON is also rendered again here. Where that does not give the recorded files, either the
JSON was edited after it was written or another agm rendered it (a renderer changes between
versions, and a report must stay qualifiable later without running anything again): that is a
note, never an accusation. A JSON that records no digests (written before they were recorded)
is noted as unchecked.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentmetrology.archive.report_qualify import (
    BINDING_FILE,
    MAX_REPORT_BYTES,
    RENDERED_FIELD,
    qualify_report,
    read_binding,
    with_findings,
)
from agentmetrology.edges.files import FileRefused, read_bytes
from agentmetrology.report.archive_files import RENDERED, rendered_digests
from agentmetrology.report.archive_report import render_archive_report, render_regrade_report
from agentmetrology.report.diagnose_report import render_diagnose_report
from agentmetrology.report.experiment_report import render_experiment_report
from agentmetrology.report.recompute import not_recomputable, recompute_cost, recomputed
from agentmetrology.store.qualify import INVALID


def _audit_texts(doc: dict[str, Any]) -> dict[str, str]:
    md, html = render_archive_report(doc)
    return {"report.md": md, "report.html": html}


def _regrade_texts(doc: dict[str, Any]) -> dict[str, str]:
    return {"report.md": render_regrade_report(doc)}


def _diagnose_texts(doc: dict[str, Any]) -> dict[str, str]:
    md, html = render_diagnose_report(doc)
    return {"report.md": md, "report.html": html}


def _experiment_texts(doc: dict[str, Any]) -> dict[str, str]:
    md, html = render_experiment_report(doc)
    return {"report.md": md, "report.html": html}


RENDERERS: dict[str, Callable[[dict[str, Any]], dict[str, str]]] = {
    "archive.json": _audit_texts, "regrade.json": _regrade_texts,
    "diagnose.json": _diagnose_texts, "experiment.json": _experiment_texts}
RENDERED_FILES = {"archive.json": ("report.md", "report.html"), "regrade.json": ("report.md",),
                  "diagnose.json": ("report.md", "report.html"),
                  "experiment.json": ("report.md", "report.html")}
# A diagnose or experiment JSON stays byte-identical across stores: the digests of the files
# rendered from it are in the binding beside it (evidence.json), not in the JSON.
IN_BINDING = frozenset({"diagnose.json", "experiment.json"})
# What a qualification says of the report's numbers (coverage, costs, pass^k, ...): the checks
# bind the report to the store's chain, its score rows to their ids and its rendered files to
# their digests, which a forger who edits a number and renders the files again keeps intact.
REDERIVED = "numbers re-derived from the store (--recompute): the report's are compared"
PARTLY_REDERIVED = ("numbers re-derived from the store (--recompute) by another build than the "
                    "report's: {n} value(s) the report alone holds were not derived again")
NOT_REDERIVED = ("numbers NOT re-derived from the store: qualify checked the report's binding "
                 "to it, not the numbers the report derives from the evidence (a number edited, "
                 "its files rendered again, passes)")


def _file_digest(path: Path) -> str | None:
    """Return the sha256 of a regular file of at most MAX_REPORT_BYTES, else None."""
    try:
        return hashlib.sha256(read_bytes(path, MAX_REPORT_BYTES)).hexdigest()
    except (OSError, FileRefused):
        return None


def _renders_as_recorded(name: str, doc: dict[str, Any], recorded: dict[str, Any]) -> bool:
    """Return True when this agm renders the JSON `doc` into the files it records."""
    try:
        texts = RENDERERS[name]({k: v for k, v in doc.items() if k != RENDERED})
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return False  # no longer a report this agm renders: edited, or another agm's
    return rendered_digests(texts) == {n: recorded.get(n) for n in texts}


def _as_written(path: Path, doc: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """Return the report JSON as it was rendered and the digests recorded of its files (the
    binding's, for a kind that keeps them there; qualify folded that binding into `evidence`,
    which the rendered document did not hold)."""
    if path.name not in IN_BINDING:
        return doc, doc.get(RENDERED)
    binding = read_binding(path.parent) or {}
    if doc.get("evidence") == binding:
        doc = {k: v for k, v in doc.items() if k != "evidence"}
    return doc, binding.get(RENDERED_FIELD)


def text_check(path: Path,
               doc: dict[str, Any]) -> tuple[list[dict[str, str]], list[str], bool]:
    """Return the problems and notes of the rendered files beside the report JSON at `path`
    (none for a kind whose files are not rendered from its JSON alone), and whether this agm
    renders the JSON into the files it records (True when there is nothing to render)."""
    names = RENDERED_FILES.get(path.name)
    if names is None:
        return [], [], True
    present = [n for n in names if (path.parent / n).exists()]
    doc, recorded = _as_written(path, doc)
    keeper = BINDING_FILE if path.name in IN_BINDING else path.name  # where digests are kept
    if not isinstance(recorded, dict):
        source = "it" if keeper == path.name else path.name
        return [], ([f"{', '.join(present)} not checked: {keeper} records no digest of "
                     f"the files rendered from {source} (written before agm recorded them)"]
                    if present else []), True
    problems, notes = [], []
    for name in names:
        if name not in present:
            if name in recorded:
                notes.append(f"{name}, rendered from {path.name}, is not in the folder")
            continue
        if _file_digest(path.parent / name) != recorded.get(name):
            problems.append({"kind": "report_text_changed", "result": INVALID,
                             "detail": f"{name} was changed after it was written (it does not "
                                       f"hash to the digest {keeper} records): its numbers "
                                       "are not the qualified ones; write the report again"})
    renders = _renders_as_recorded(path.name, doc, recorded)
    if not renders:
        notes.append(f"this agm does not render {path.name} into the files it records: it "
                     "was rendered by another agm, or edited after it was written (only its "
                     "binding and score rows are checked against the store)")
    return problems, notes, renders


def _not_rendered(path: Path) -> str:
    """Return the note of a report whose recomputed sections are equal but whose files are not
    what this agm renders from it. Not an accusation: the package version (0.1.0 throughout)
    does not pin the renderer, so an honest report rendered by an earlier build reads the same
    as one whose report.md was edited and its digest recorded again; the numbers a reader sees
    in those files were not re-derived, and that is what is said."""
    names = ", ".join(RENDERED_FILES[path.name])
    return (f"the files rendered from {path.name} ({names}) were not re-derived: this agm "
            "renders the recomputed sections differently (another build's renderer, or the "
            "files were edited and their digests recorded again); read the numbers from "
            f"{path.name}, or write the report again to check its files")


def qualify_report_files(path: Path, doc: dict[str, Any], store: Path,
                         recompute: bool = False) -> dict[str, Any]:
    """Return the qualification of a report against its store now, its rendered files
    included (archive.report_qualify.qualify_report plus text_check), and with `recompute`
    the report derived again from the store (report.recompute), its `recomputed` section saying
    how (same build or another); `numbers_rederived` and `numbers` say whether its numbers were
    recomputed, in words."""
    problems, notes, renders = text_check(path, doc)
    out = qualify_report(path, doc, store, problems, notes)
    why = not_recomputable(path, doc, out["store_qualification"])
    rederived = False  # derived again and compared (an edited report no analysis derives is not)
    if recompute:
        found = recomputed(path, doc, store, out["store_qualification"])
        # equal sections do not cover files this agm does not render from them (said, and
        # the numbers are not called re-derived; never called edited: see _not_rendered)
        unrendered = found.derived and not found.problems and not renders
        out = with_findings(out, found.problems,
                            [*found.notes, *([_not_rendered(path)] if unrendered else [])])
        rederived = found.derived and not unrendered and not found.uncompared
        if found.block is not None:
            out = {**out, "recomputed": found.block}
        if found.derived and found.uncompared:
            return {**out, "numbers_rederived": False,
                    "numbers": PARTLY_REDERIVED.format(n=found.uncompared)}
    return {**out, "numbers_rederived": rederived,
            "numbers": REDERIVED if rederived else NOT_REDERIVED + (
                "" if recompute  # the problems or notes say why
                else f"; `--recompute` re-derives them ({recompute_cost(path)})" if why is None
                else f"; they cannot be re-derived here: {why}")}
