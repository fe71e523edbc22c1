"""An archive audit of a store, recomputed from the store and compared with the report.

`agm evidence qualify --recompute`: the checks without it bind a report's score rows and chain
head to the store, but not the numbers the report derives from them (coverage, pass^k, cost,
provenance): a forger who edits a number in archive.json, renders the files again and records
their digests passes them. Recomputing the audit from the store at the report's chain length
and comparing every section catches that. The input files' digests, the evidence block (the
qualification now), the rendered files' digests and the store's name as given are not
compared: they describe where and when, not what the store holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology.archive.audit import audit_archive
from agentmetrology.archive.inputs import load_checked, read_from
from agentmetrology.archive.score_row import store_facts
from agentmetrology.records.canonical import canonical_json, to_plain
from agentmetrology.store.opening import open_store
from agentmetrology.store.qualify import INVALID

NOT_COMPARED = frozenset({"inputs", "evidence", "rendered"})
SHOWN = 5  # differing values named in the problem


def _differences(old: Any, new: Any, path: str, out: list[str]) -> None:
    """Append the paths (and both values) where plain JSON values `old` and `new` differ."""
    if len(out) >= SHOWN:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            _differences(old.get(key), new.get(key), f"{path}.{key}" if path else str(key), out)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            _differences(a, b, f"{path}[{i}]", out)
    elif canonical_json(old) != canonical_json(new):
        out.append(f"{path}: {_short(old)} in the report, {_short(new)} recomputed")


def _short(value: Any) -> str:
    text = canonical_json(value).decode("utf-8")
    return text if len(text) <= 60 else text[:57] + "..."


def _section(doc: dict[str, Any], key: str) -> dict[str, Any]:
    """Return a top-level object of the report ({} when absent or not an object)."""
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def _comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """Return the sections compared, as plain JSON (the store's name as given left out)."""
    plain = to_plain({k: v for k, v in doc.items() if k not in NOT_COMPARED})
    archive = dict(_section(plain, "archive"))
    archive.pop("source", None)
    return {**plain, "archive": archive}


def not_recomputable(path: Path, doc: dict[str, Any], current: dict[str, Any]) -> str | None:
    """Return why the report `doc` (read from `path`) cannot be recomputed from its store,
    whose qualification now is `current` (None: it can)."""
    if path.name != "archive.json" or _section(doc, "archive").get("format") != "agm":
        return (f"--recompute applies to an archive audit of a store, and {path.name} is not "
                "one")
    inputs = doc.get("inputs")
    if not isinstance(inputs, list) or any(not isinstance(i, dict) or i.get("role") != "archive"
                                           for i in inputs):
        return "the report lists inputs other than the store (spans, a claim) or none it can read"
    was = _section(doc, "evidence").get("chain_length")
    now = current.get("chain_length")
    if was != now:
        return (f"the store's chain is {now} entries long, the report's was {was}; a "
                "recomputed audit would cover another state")
    if not current.get("qualified"):  # a broken store: its problems are the finding
        return "the store does not qualify now"
    return None


def recomputed(path: Path, doc: dict[str, Any], store: Path,
               current: dict[str, Any]) -> tuple[list[dict[str, str]], list[str]]:
    """Return the problems and notes of recomputing the report `doc` (read from `path`) from
    `store`, whose qualification now is `current`."""
    why = not_recomputable(path, doc, current)
    if why is not None:
        return [], [f"not recomputed: {why}"]
    archive = load_checked(store, "agm")
    with open_store(store, readonly=True) as st:
        facts = store_facts(st)
    again = audit_archive(archive, read_from(store), current, facts)
    found: list[str] = []
    _differences(_comparable(doc), _comparable(again), "", found)
    if not found:
        return [], ["recomputed from the store: every section of the report is equal"]
    return [{"kind": "report_recomputed_differs", "result": INVALID,
             "detail": f"recomputed from the store, {path.name} differs: "
                       + "; ".join(found) + ("; ..." if len(found) >= SHOWN else "")}], []
