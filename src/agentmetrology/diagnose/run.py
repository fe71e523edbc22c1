"""`agm diagnose STORE`: every original/mutated pair in a store, its metrics and reading."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology import __version__
from agentmetrology.archive.importers.agm_store import open_store
from agentmetrology.diagnose.metrics import MARGIN, TAU, diagnose_pairs
from agentmetrology.diagnose.pairs import collect_pairs
from agentmetrology.mutations import MUTATIONS
from agentmetrology.records.canonical import digest, to_plain

SCHEMA = "agentmetrology.diagnose/1"


def _positive_control(groups: dict[str, Any]) -> dict[str, Any]:
    rows = [g for g in groups.values() if g["mutation"] == "misleading"]
    detected = [g["target"] for g in rows
                if (g.get("vrg") or {}).get("interval") and g["reading"] == "behavioural failure"]
    if not rows:
        return {"status": "not run", "why": "no misleading (positive control) pairs"}
    return {"status": "detected" if detected else "not detected", "targets": detected,
            "why": "the gap's interval excludes 0 for these targets" if detected else
            "no target's gap interval excludes 0: the pipeline may be blind to a real effect"}


def _gap_only_ranking(groups: dict[str, Any]) -> dict[str, Any]:
    """Rank policies by mean |VRG| over mutations (what a gap-only report would call robust)."""
    gaps: dict[str, list[float]] = {}
    fails: dict[str, bool] = {}
    for g in groups.values():
        if g["mutation"] == "repeat" or not g.get("vrg"):
            continue
        name = f"{g['environment']}|{g['target']}|{g['level']}"
        gaps.setdefault(name, []).append(abs(g["vrg"]["value"]))
        fails[name] = fails.get(name, True) and g["reading"] == "fails regardless"
    order = sorted(gaps, key=lambda n: (sum(gaps[n]) / len(gaps[n]), n))
    top = order[0] if order else None
    warning = (f"a gap-only ranking calls {top} the most robust, but it fails in every "
               "condition (MSR 0): its small gaps measure nothing"
               if top is not None and fails.get(top) else "")
    return {"order": order, "mean_abs_gap": {n: sum(v) / len(v) for n, v in gaps.items()},
            "warning": warning}


def diagnose_store(path: Path, seed: int = 0) -> dict[str, Any]:
    """Return diagnose.json for the store at `path`."""
    with open_store(path) as store:
        pairs, scorers = collect_pairs(store)
    if not pairs:
        raise ValueError(f"the store at {path} holds no mutated administrations: run a "
                         "campaign with `mutations = [...]` first")
    groups = {"|".join(k): {"environment": k[0], "target": k[1], "level": k[2],
                            "mutation": k[3], **v}
              for k, v in diagnose_pairs(pairs, seed).items()}
    readings: dict[str, dict[str, str]] = {}
    for g in groups.values():
        readings.setdefault(f"{g['environment']}|{g['target']}|{g['level']}", {})[
            g["mutation"]] = g["reading"]
    doc = {"schema": SCHEMA, "package": {"name": "agentmetrology", "version": __version__},
           "store": path.name, "analysis_seed": seed, "tau": TAU, "margin": MARGIN,
           "scorers": {env: {"shipped": s.shipped, "shipped_scale": s.shipped_scale,
                             "truth": s.truth, "truth_component": s.truth_component}
                       for env, s in scorers.items()},
           "mutations": {name: {"version": m.version, "side": m.side,
                                "description": m.description}
                         for name, m in MUTATIONS.items()
                         if any(g["mutation"] == name for g in groups.values())},
           "pairs": {"total": len(pairs), "complete": sum(p.complete for p in pairs),
                     "half_finished": sum(1 for p in pairs
                                          if p.original is None or p.mutated is None),
                     "unmeasured": sum(1 for p in pairs
                                       if p.original and p.mutated and not p.complete)},
           "groups": groups, "readings": readings,
           "positive_control": _positive_control(groups),
           "gap_only_ranking": _gap_only_ranking(groups)}
    plain: dict[str, Any] = to_plain(doc)
    plain["digest"] = digest(plain)
    return plain
