"""Write an audit's artifacts: audit.json, card.json, report.md and report.html."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentmetrology.records.canonical import to_plain


def write_json(path: Path, doc: Any) -> None:
    """Write `doc` as indented, key-sorted JSON (no NaN) atomically."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(to_plain(doc), indent=2, sort_keys=True, ensure_ascii=False,
                              allow_nan=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def write_audit(out: Path, doc: dict[str, Any], markdown: str, html: str) -> dict[str, Path]:
    """Write the four artifacts into `out` (created if needed) and return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"audit": out / "audit.json", "card": out / "card.json",
             "markdown": out / "report.md", "html": out / "report.html"}
    write_json(paths["audit"], doc)
    write_json(paths["card"], {**doc["card"], "audit_digest": doc["digests"].get("card")})
    for key, text in (("markdown", markdown), ("html", html)):
        tmp = paths[key].with_suffix(paths[key].suffix + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(paths[key])
    return paths
