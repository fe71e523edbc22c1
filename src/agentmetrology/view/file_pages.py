"""Pages of an audit dir (its validity card and reports) and of an archive audit."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentmetrology.audit.card import basis_text
from agentmetrology.view.html import Html, num, url
from agentmetrology.view.source import Source

UNRESOLVED_SHOWN = 500


class FileReadError(Exception):
    """Raised when a file the viewer was pointed at cannot be read or parsed."""


def read_json(path: Path) -> Any:
    """Return a JSON file's content (FileReadError with one line if it cannot be read)."""
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError) as exc:
        raise FileReadError(f"cannot read {path.name}: {exc}") from exc


def _files(h: Html, source: Source) -> str:
    if not source.files:
        return ""
    links = " · ".join(h.link(f"/files/{name}", name) for name in source.files)
    return f"<p>Files: {links}</p>"


def _nav(h: Html, source: Source) -> str:
    return h.link("/", "summary") + "".join(h.link(f"/files/{n}", n) for n in source.files
                                           if n.endswith(".html"))


def audit_page(h: Html, source: Source) -> str:
    """Return an audit dir's validity card, with links to its report and JSON files."""
    card_file = source.root / "card.json"
    parts = [f"<p>Audit dir <code>{h.t(source.root)}</code>.</p>", _files(h, source)]
    if not card_file.is_file():
        parts.append("<p>This audit dir has no card.json.</p>")
        return h.page("Audit", "".join(parts), _nav(h, source))
    card = read_json(card_file)
    if not isinstance(card, dict):
        raise FileReadError("card.json is not a JSON object")
    parts.append(
        f"<p>Benchmark <strong>{h.t(card.get('benchmark'))}</strong>; as shipped "
        f"(<code>{h.t(card.get('shipped_configuration'))}</code>) it licenses "
        f"<strong>{h.t(card.get('licensed_claim'))}</strong>. Audit digest "
        f"<code>{h.t(str(card.get('audit_digest'))[:12])}</code>.</p>")
    configs = [c for c in card.get("configurations") or [] if isinstance(c, dict)]
    names = sorted({r for c in configs for r in (c.get("rows") or {})})
    rows = []
    for c in configs:
        cells = []
        for r in names:
            row = (c.get("rows") or {}).get(r) or {}
            ev = row.get("evidence")
            detail = (f"<details><summary>evidence</summary><pre>"
                      f"{h.t(json.dumps(ev, indent=1, sort_keys=True))}</pre></details>"
                      if ev else "")
            cells.append(f"<strong>{h.t(row.get('status', 'missing'))}</strong>{detail}")
        basis = c.get("claim_basis")  # absent from a card written before claims had one
        said = (f"<br><small>{h.t(basis_text(basis))}</small>"
                if isinstance(basis, dict) and "claim" in basis
                and all(isinstance(basis.get(k), dict) for k in ("rests_on", "not_checked"))
                else "")
        rows.append([h.t(c.get("level")), h.t(c.get("scorer")), h.t(c.get("scorer_kind")),
                     *cells, h.t(c.get("licensed_claim")) + said])
    parts.append("<h2>Validity card</h2>" + h.table(
        ["level", "scorer", "kind", *(n.replace("_", " ") for n in names), "licensed claim"],
        rows, "card"))
    return h.page(f"Audit of {card.get('benchmark', '?')}", "".join(parts), _nav(h, source))


def archive_page(h: Html, source: Source, params: Mapping[str, str]) -> str:
    """Return an archive audit: checks, coverage per cell, and the unresolved episodes."""
    assert source.archive_file is not None
    doc = read_json(source.archive_file)
    if not isinstance(doc, dict):
        raise FileReadError(f"{source.archive_file.name} is not a JSON object")
    arch = doc.get("archive") or {}
    parts = [f"<p>Archive audit <code>{h.t(source.archive_file)}</code> ({h.t(doc.get('schema'))})"
             f": source <code>{h.t(arch.get('source'))}</code> read as "
             f"<strong>{h.t(arch.get('format'))}</strong>; {h.t(arch.get('episodes'))} episodes, "
             f"{h.t(arch.get('tasks'))} tasks, {h.t(arch.get('cells'))} cells, "
             f"{h.t(arch.get('runs'))} runs.</p>", _files(h, source)]
    checks = [c for c in doc.get("checks") or [] if isinstance(c, dict)]
    parts.append("<h2>Checks</h2>" + h.table(
        ["check", "applies", "headline"],
        [[h.t(c.get("check")), "yes" if c.get("applicable") else "no",
          h.t(", ".join(f"{k} {num(v) if not isinstance(v, str) else v}"
                        for k, v in sorted(c.items()) if k not in ("check", "applicable")))]
         for c in checks], "checks"))
    cov = doc.get("coverage") or {}
    cells = [("overall", cov.get("overall") or {})]
    cells += [(str(c.get("cell")), c) for c in cov.get("cells") or [] if isinstance(c, dict)]
    rows = []
    for name, c in cells:
        counts = c.get("counts") or {}
        bounds = c.get("bounds") or {}
        rows.append([h.t(name), h.t(c.get("planned")), h.t(c.get("graded")),
                     h.t(counts.get("pass")), h.t(counts.get("fail")),
                     h.t(counts.get("ungraded")), h.t(counts.get("invalid_replay")),
                     h.t(num(c.get("score_stored"))), h.t(num(c.get("score_graded_only"))),
                     h.t(f"[{num(bounds.get('lower'))}, {num(bounds.get('upper'))}]"),
                     h.t(", ".join(f"{k} {v}" for k, v in sorted((c.get("reasons") or {})
                                                                 .items())))])
    parts.append("<h2>Coverage</h2><p class=\"note\">Ungraded episodes are never scores: the "
                 "bounds say where the pass rate over all planned episodes lies.</p>"
                 + h.table(["cell", "planned", "graded", "pass", "fail", "ungraded",
                            "invalid replay", "stored score", "graded-only score", "bounds",
                            "reasons"], rows, "coverage"))
    parts.append(_unresolved(h, cov, params))
    load = doc.get("load") or {}
    problems = load.get("problems") or []
    if problems:
        parts.append(f"<h2>Load problems ({h.t(load.get('problem_count'))})</h2><ul>"
                     + "".join(f"<li>{h.t(p)}</li>" for p in problems) + "</ul>")
    return h.page("Archive audit", "".join(parts), _nav(h, source))


def _unresolved(h: Html, cov: dict[str, Any], params: Mapping[str, str]) -> str:
    eps = [e for e in cov.get("unresolved_episodes") or [] if isinstance(e, dict)]
    want = {k: params[k] for k in ("cell", "task", "reason") if params.get(k)}
    shown = [e for e in eps if all(str(e.get(k)) == v for k, v in want.items())]
    rows = [[h.t(e.get("episode_id")), h.link(url("/", cell=e.get("cell")), e.get("cell")),
             h.link(url("/", task=e.get("task")), e.get("task")), h.t(e.get("trial")),
             h.t(e.get("outcome")), '<span class="null">null</span>',
             h.link(url("/", reason=e.get("reason")), e.get("reason")), h.t(e.get("detail")),
             h.t(num(e.get("stored_score"))), h.t(e.get("termination"))]
            for e in shown[:UNRESOLVED_SHOWN]]
    filt = ""
    if want:
        filt = (f" (filtered: {h.t(', '.join(f'{k} = {v}' for k, v in want.items()))}; "
                f"{h.link('/', 'clear')})")
    return (f"<h2>Unresolved episodes</h2><p>{len(shown)} of {len(eps)} listed{filt}; at "
            f"most {UNRESOLVED_SHOWN} shown.</p>"
            + h.table(["episode", "cell", "task", "trial", "outcome", "score", "reason",
                       "detail", "stored (not a score)", "termination"], rows, "unresolved"))
