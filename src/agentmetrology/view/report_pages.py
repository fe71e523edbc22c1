"""The page of an `agm diagnose` or `agm experiment report` output directory: its tables in
brief, the evidence it was built from, and links to its report and JSON files."""

from __future__ import annotations

from typing import Any

from agentmetrology.view.file_pages import FileReadError, read_json
from agentmetrology.view.html import Html, num
from agentmetrology.view.source import Source


def _value(est: Any) -> str:
    return num(est.get("value")) if isinstance(est, dict) else "n/a"


def _diagnose_table(h: Html, doc: dict[str, Any]) -> str:
    # the policy as diagnose printed it (with its level when the store has several)
    rows = [[h.t(g.get("policy") or g.get("target")), h.t(g.get("mutation")),
             h.t(g.get("complete")),
             _value(g.get("vrg")), _value(g.get("rescored_gap")),
             "n/a" if g.get("msr") is None else num(g["msr"]), h.t(g.get("reading"))]
            for g in (doc.get("groups") or {}).values() if isinstance(g, dict)]
    return "<h2>Groups</h2>" + h.table(
        ["policy", "mutation", "pairs", "VRG", "rescored", "MSR", "reading"], rows, "groups")


def _experiment_table(h: Html, doc: dict[str, Any]) -> str:
    rows = [[h.t(c.get("target")), h.t(c.get("level")), h.t(c.get("arm")),
             h.t(c.get("baseline")), _value(c.get("delta")), h.t(c.get("pairs")),
             h.t(c.get("verdict"))]
            for c in doc.get("cells") or [] if isinstance(c, dict)]
    return "<h2>Verdicts</h2>" + h.table(
        ["target", "level", "arm", "baseline", "delta", "pairs", "verdict"], rows, "verdicts")


def report_dir_page(h: Html, source: Source) -> str:
    """Return the page of a diagnose or experiment output directory."""
    kind = "diagnose" if (source.root / "diagnose.json").is_file() else "experiment"
    doc = read_json(source.root / f"{kind}.json")
    if not isinstance(doc, dict):
        raise FileReadError(f"{kind}.json is not a JSON object")
    links = " · ".join(h.link(f"/files/{name}", name) for name in source.files)
    parts = [f"<p>{kind.capitalize()} output <code>{h.t(source.root)}</code>. Files: "
             f"{links}</p>"]
    binding = read_json(source.root / "evidence.json") if "evidence.json" in source.files \
        else None
    if isinstance(binding, dict):
        parts.append(f"<p>Built from evidence <code>"
                     f"{h.t(str(binding.get('evidence_digest'))[:12])}</code> (chain length "
                     f"{h.t(binding.get('chain_length'))}, {h.t(binding.get('result'))}); "
                     "check it now with <code>agm evidence qualify</code>.</p>")
    parts.append(_diagnose_table(h, doc) if kind == "diagnose" else _experiment_table(h, doc))
    nav = h.link("/", "summary") + "".join(h.link(f"/files/{n}", n) for n in source.files
                                           if n.endswith(".html"))
    return h.page(f"{kind.capitalize()} report", "".join(parts), nav)
