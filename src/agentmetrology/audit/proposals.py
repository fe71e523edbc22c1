"""LLM-assisted proposals for the auditor: they propose, they never score (docs/inspect.md).

- Scaffold discovery: given a harness's source files, a model proposes who owns each of retry,
  pagination, deduplication, cleaning and submission (harness or model), citing file:line.
- Probe design: given a few samples of a benchmark, a model proposes forged outputs (a name, the
  output text, and whether it should score below the correct answer).

Every proposal is labelled `proposal` and `confirmed: false`. Evidence that cites a file not
given or a line outside it is dropped and counted. Rationale prose passes the number guard
(the caller gives it: the report layer's) against what the model was shown; prose citing a
number it was not shown, or with no guard given, is `[rejected by the number guard]`. A
proposed probe becomes evidence only when executed against the real scorer (`confirm_probes`),
and even then it is reported beside the verdict, never in it.
Talks to any OpenAI-compatible chat endpoint.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmetrology.records.errors import UserError
from agentmetrology.runtime.registry import Registry

__all__ = ["DECISIONS", "PROPOSERS", "Endpoint", "ProposalError", "confirm_probes", "propose",
           "propose_ownership", "propose_probes", "write_proposal"]

DECISIONS = ("retry", "pagination", "deduplication", "cleaning", "submission")
OWNERS = ("harness", "model")
MAX_SOURCE_CHARS = 60_000
REJECTED = "[rejected by the number guard]"
# (prose, what the model was shown) -> does every number in the prose appear in it? The CLI
# passes the report layer's number guard; without one, prose is withheld, never passed unchecked.
Guard = Callable[[str, Any], bool]


class ProposalError(Exception):
    """The endpoint failed or answered something that is not a proposal (one line)."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """An OpenAI-compatible chat endpoint."""

    model: str
    base_url: str | None
    api_key: str


def _chat(ep: Endpoint, system: str, user: str) -> dict[str, Any]:
    """Ask once (temperature 0) and return the JSON object in the reply."""
    from openai import OpenAI, OpenAIError

    client = OpenAI(base_url=ep.base_url, api_key=ep.api_key, max_retries=0, timeout=120)
    try:
        reply = client.chat.completions.create(
            model=ep.model, temperature=0,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}])
    except OpenAIError as exc:
        raise ProposalError(f"the proposal endpoint failed: {type(exc).__name__}: "
                            f"{' '.join(str(exc).split())[:300]}") from exc
    text = (reply.choices[0].message.content or "") if reply.choices else ""
    match = re.search(r"\{.*\}", text, re.S)
    try:
        doc = json.loads(match.group(0)) if match else None
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        raise ProposalError("the proposal endpoint did not answer a JSON object")
    return doc


def _guard(text: Any, shown: Any, guard: Guard | None) -> tuple[str, bool]:
    """Return (prose, passed): prose citing a number absent from what was shown is replaced."""
    prose = " ".join(str(text or "").split())
    if guard is None or not guard(prose, shown):
        return REJECTED, False
    return prose, True


def _numbered(files: list[Path]) -> tuple[str, dict[str, int]]:
    parts, sizes = [], {}
    for f in files:
        try:
            lines = f.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as exc:
            raise ProposalError(f"cannot read {f}: {exc.strerror or exc}") from exc
        sizes[f.name] = len(lines)
        parts.append(f"=== {f.name}\n" + "\n".join(f"{i}: {ln}" for i, ln in
                                                   enumerate(lines, 1)))
    text = "\n".join(parts)
    if len(text) > MAX_SOURCE_CHARS:
        raise ProposalError(f"the sources are {len(text)} characters; give at most "
                            f"{MAX_SOURCE_CHARS} (the files that hold the harness loop)")
    return text, sizes


def propose_ownership(ep: Endpoint, files: list[Path],
                      guard: Guard | None = None) -> dict[str, Any]:
    """Return a proposed ownership map with file:line evidence, labelled as a proposal."""
    source, sizes = _numbered(files)
    system = ("You read an agent harness's source. For each decision in "
              f"{', '.join(DECISIONS)}, say whether the harness code or the model owns it, "
              "citing file name and line numbers. Answer only JSON: {\"decisions\": {NAME: "
              "{\"owner\": \"harness\"|\"model\", \"evidence\": [{\"file\": F, \"line\": N}], "
              "\"rationale\": TEXT}}}.")
    doc = _chat(ep, system, source)
    raw = doc.get("decisions") if isinstance(doc.get("decisions"), dict) else {}
    decisions: dict[str, Any] = {}
    dropped = guarded = 0
    for name in DECISIONS:
        item = raw.get(name) if isinstance(raw, dict) else None
        if not isinstance(item, dict) or item.get("owner") not in OWNERS:
            decisions[name] = {"owner": None, "evidence": [], "rationale": "",
                               "status": "no proposal"}
            continue
        evidence = []
        for e in item.get("evidence") or []:
            ok = (isinstance(e, dict) and e.get("file") in sizes
                  and isinstance(e.get("line"), int) and 1 <= e["line"] <= sizes[e["file"]])
            if ok:
                evidence.append({"file": e["file"], "line": e["line"]})
            else:
                dropped += 1
        prose, passed = _guard(item.get("rationale"), {"source": source}, guard)
        guarded += 0 if passed else 1
        decisions[name] = {"owner": item["owner"], "evidence": evidence, "rationale": prose,
                           "status": "proposal" if evidence else "proposal without evidence"}
    return {"kind": "ownership proposal", "label": "proposal", "confirmed": False,
            "model": ep.model, "files": sorted(sizes), "decisions": decisions,
            "evidence_dropped": dropped, "rationales_rejected": guarded,
            "note": "a proposal changes no verdict until an executed probe confirms it"}


def propose_probes(ep: Endpoint, samples: list[dict[str, Any]],
                   guard: Guard | None = None) -> dict[str, Any]:
    """Return proposed forged outputs for the given samples ({id, input, target}) as proposals."""
    shown = {"samples": samples}
    system = ("You design forged outputs to test a benchmark's scorer. For each sample, propose "
              "outputs that look plausible but are wrong (or right), each with a name and "
              "whether a valid scorer should score it below the correct answer. Answer only "
              "JSON: {\"probes\": [{\"sample\": ID, \"name\": N, \"output\": TEXT, "
              "\"degraded\": true|false, \"rationale\": TEXT}]}.")
    doc = _chat(ep, system, json.dumps(shown, ensure_ascii=False))
    ids = {str(s["id"]) for s in samples}
    probes, dropped = [], 0
    for p in doc.get("probes") or []:
        if not (isinstance(p, dict) and str(p.get("sample")) in ids
                and isinstance(p.get("output"), str) and isinstance(p.get("degraded"), bool)):
            dropped += 1
            continue
        prose, _ = _guard(p.get("rationale"), shown, guard)
        probes.append({"sample": str(p["sample"]), "name": str(p.get("name") or "proposed"),
                       "output": p["output"], "degraded": p["degraded"], "rationale": prose,
                       "label": "proposal", "confirmed": False})
    return {"kind": "probe proposal", "label": "proposal", "model": ep.model,
            "probes": probes, "dropped": dropped}


def confirm_probes(proposal: dict[str, Any], correct: dict[str, float | None],
                   scored: dict[tuple[str, str], float | None],
                   resolution: float = 1e-6) -> dict[str, Any]:
    """Mark each proposed probe by what the executed scorer said.

    A degraded probe scored within `resolution` of the sample's correct output confirms a
    criterion gap (`confirmed: true`, `finding: "degraded = correct"`); one scored lower is
    `confirmed: true`, `finding: "separated"`; an unscored one stays unconfirmed.
    """
    out = []
    for p in proposal["probes"]:
        got = scored.get((p["sample"], p["name"]))
        ref = correct.get(p["sample"])
        q = dict(p)
        if got is None or ref is None:
            q.update(confirmed=False, finding="not executed")
        elif p["degraded"]:
            q.update(confirmed=True, score=got,
                     finding="degraded = correct" if got >= ref - resolution else "separated")
        else:
            q.update(confirmed=True, score=got, finding="not degraded: no criterion test")
        out.append(q)
    return {**proposal, "probes": out}


def propose(what: str, ep: Endpoint, items: list[str], limit: int,
            passes: Callable[[str, Any], bool]) -> dict[str, Any]:
    """Return the proposals `what` names: `ownership` (from source files `items`) or `probes`
    (for the one Inspect task `items` names); UserError for anything else or a missing file."""
    if what not in PROPOSERS:
        raise UserError(f"propose {what!r}: use ownership or probes")
    return PROPOSERS.get(what)(ep, items, limit, passes)


def _propose_from_files(ep: Endpoint, items: list[str], limit: int,
                        passes: Callable[[str, Any], bool]) -> dict[str, Any]:
    """Return the ownership proposal for the harness source files `items`."""
    files = [Path(f) for f in items]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise UserError(f"no such file: {', '.join(missing)}")
    return propose_ownership(ep, files, passes)


# What `agm audit propose WHAT` runs. Probe design executes forged outputs on an Inspect task's
# scorer, which the Inspect package does from above the auditor: it is named by module path and
# imported when asked for, as a plug-in would be.
Proposer = Callable[[Endpoint, list[str], int, Guard], dict[str, Any]]
PROPOSERS: Registry[Proposer] = Registry("proposal")
PROPOSERS.add("ownership", _propose_from_files)
PROPOSERS.add_lazy("probes",
                   "agentmetrology.inspect_ext.audit.probe_proposals:propose_task_probes")


def write_proposal(out: Path, doc: dict[str, Any]) -> None:
    """Write the proposals to `out` (its folder made); UserError when it cannot be written."""
    from agentmetrology.audit.output import write_json

    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_json(out, doc)
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
