"""Write an audit's artifacts: audit.json, card.json, report.md and report.html."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentmetrology.edges.staged import staged_files
from agentmetrology.records.canonical import to_plain


def _json_text(doc: Any) -> str:
    """Return `doc` as indented, key-sorted JSON (no NaN), newline-terminated."""
    return json.dumps(to_plain(doc), indent=2, sort_keys=True, ensure_ascii=False,
                      allow_nan=False) + "\n"


def write_json(path: Path, doc: Any) -> None:
    """Write `doc` as indented, key-sorted JSON (no NaN) atomically."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(_json_text(doc), encoding="utf-8")
    tmp.replace(path)


def write_audit(out: Path, doc: dict[str, Any], markdown: str, html: str) -> dict[str, Path]:
    """Write the four artifacts into `out` (created if needed) and return their paths.

    All four are written beside their names first and moved into place only after the last
    one is written: an audit interrupted while writing (Ctrl-C, a full disk) leaves the
    folder's previous four files as they were and no half-set that mixes two audits (a new
    audit.json beside an old report.html); what it wrote is removed.
    """
    out.mkdir(parents=True, exist_ok=True)
    paths = {"audit": out / "audit.json", "card": out / "card.json",
             "markdown": out / "report.md", "html": out / "report.html"}
    texts = {"audit": _json_text(doc),
             "card": _json_text({**doc["card"], "audit_digest": doc["digests"].get("card")}),
             "markdown": markdown, "html": html}
    with staged_files(paths, lambda p: p.with_suffix(p.suffix + ".tmp")) as tmps:
        for key, text in texts.items():
            tmps[key].write_text(text, encoding="utf-8")
    return paths
