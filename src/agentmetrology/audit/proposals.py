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

__all__ = ["DECISIONS", "Endpoint", "ProposalError", "confirm_probes", "propose",
           "propose_ownership", "propose_probes", "propose_task_probes", "write_proposal"]

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


def execute_proposed_probes(loaded: Any, proposal: dict[str, Any],
                            timeout: float = 10.0) -> dict[str, Any]:
    """Score each proposed output (and each sample's correct output) with the task's first
    scorer, in-process through Inspect, and return the proposal marked by the result."""
    from agentmetrology.audit.targets.inspect_forge import Forged
    from agentmetrology.audit.targets.inspect_run import run_forged

    infos = {i.sample_id: i for i in loaded.infos}
    forged: dict[tuple[str, str], Forged] = {}
    for p in proposal["probes"]:
        info = infos.get(p["sample"])
        if info is None or info.unusable is not None:
            continue
        forged[(p["sample"], "correct")] = Forged(info.targets[0])
        forged[(p["sample"], p["name"])] = Forged(p["output"])
    res = run_forged(loaded, forged, timeout, None) if forged else None
    cells = res.cells if res is not None else {}
    correct = {sid: c.value for (sid, probe, i), c in cells.items()
               if i == 0 and probe == "correct"}
    scored = {(sid, probe): c.value for (sid, probe, i), c in cells.items() if i == 0}
    return confirm_probes(proposal, correct, scored)


def propose_task_probes(ep: Endpoint, items: list[str], limit: int,
                        passes: Callable[[str, Any], bool]) -> dict[str, Any]:
    """Return forged outputs a model proposes for one Inspect task, executed on its scorer."""
    from agentmetrology.audit.targets.inspect_load import InspectLoadError, load_task

    if len(items) != 1:
        raise UserError("propose probes takes one Inspect task")
    try:
        loaded = load_task(items[0], {}, limit)
    except InspectLoadError as exc:
        raise UserError(str(exc)) from exc
    shown = [{"id": i.sample_id, "input": str(s.input)[:2000],
              "target": list(i.targets)} for s, i in zip(loaded.samples, loaded.infos,
                                                         strict=True)
             if i.unusable is None]
    if not shown:
        raise UserError(f"{items[0]}: no sample has a usable target to design probes for")
    return execute_proposed_probes(loaded, propose_probes(ep, shown, passes))


def propose(what: str, ep: Endpoint, items: list[str], limit: int,
            passes: Callable[[str, Any], bool]) -> dict[str, Any]:
    """Return the proposals `what` names: `ownership` (from source files `items`) or `probes`
    (for the one Inspect task `items` names); UserError for anything else or a missing file."""
    if what == "ownership":
        files = [Path(f) for f in items]
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            raise UserError(f"no such file: {', '.join(missing)}")
        return propose_ownership(ep, files, passes)
    if what == "probes":
        return propose_task_probes(ep, items, limit, passes)
    raise UserError(f"propose {what!r}: use ownership or probes")


def write_proposal(out: Path, doc: dict[str, Any]) -> None:
    """Write the proposals to `out` (its folder made); UserError when it cannot be written."""
    from agentmetrology.audit.output import write_json

    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_json(out, doc)
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
