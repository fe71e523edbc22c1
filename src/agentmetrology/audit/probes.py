"""Stage: the forged-submission battery and criterion sensitivity (docs/audit.md, "Stages")."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from agentmetrology.audit.score_mean import plain_mean
from agentmetrology.audit.target import AuditTarget, ScoreOutcome, TaskRef

TRUTH_EPS = 1e-9  # "strictly lower ground-truth quality"
TOP_REASONS = 5  # distinct INVALID reasons kept, most common first


def _cell(ref: TaskRef, probe: str, truth: float | None, out: ScoreOutcome) -> dict[str, Any]:
    return {"task": ref.task_id, "seed": ref.seed, "probe": probe, "truth": truth,
            "score": out.value, "status": out.status, "message": out.message}


def probe_battery(target: AuditTarget, refs: list[TaskRef]) -> dict[str, Any]:
    """Score every probe of every task with the target's scorer and ground truth.

    Criterion sensitivity passes iff scorer(correct) > scorer(x) + eps for every probe x of
    strictly lower ground-truth quality; a tie or inversion fails it and is listed.
    """
    cells: list[dict[str, Any]] = []
    offending: list[dict[str, Any]] = []
    # The samples at least one correct/degraded pair was compared on: a verdict's n. A sample
    # whose degraded probes were all unscored (or of undecided truth) is no evidence about the
    # scorer, though its `correct` cell was scored.
    samples: list[dict[str, Any]] = []
    compared = invalid_pairs = truth_unknown_pairs = 0
    for ref in refs:
        compared_before = compared
        correct = target.oracle(ref)
        probes = target.probes(ref, correct) if correct is not None else None
        if not probes:
            continue
        scored = [(p, target.score(ref, p.submission)) for p in probes]
        cells += [_cell(ref, p.name, p.truth, o or ScoreOutcome(None, "INVALID", "no scorer"))
                  for p, o in scored]
        (c_probe, c_out), rest = scored[0], scored[1:]
        for probe, out in rest:
            if probe.truth is None or c_probe.truth is None:
                truth_unknown_pairs += 1  # no ground-truth order to check: excluded, counted
                continue
            if probe.truth >= c_probe.truth - TRUTH_EPS:
                continue  # not strictly worse: the criterion says nothing about it
            if c_out is None or out is None or c_out.value is None or out.value is None:
                invalid_pairs += 1
                continue
            compared += 1
            if not c_out.value > out.value + target.resolution:
                offending.append({"task": ref.task_id, "seed": ref.seed, "probe": probe.name,
                                  "score_correct": c_out.value, "score_probe": out.value,
                                  "truth_correct": c_probe.truth, "truth_probe": probe.truth,
                                  "relation": "tie" if abs(c_out.value - out.value)
                                  <= target.resolution else "inversion"})
        if compared > compared_before:
            samples.append({"task": ref.task_id, "seed": ref.seed})
    # An unscored pair was not checked: the criterion cannot pass over it (a `not probed` row
    # never licenses its claim), though an offending pair elsewhere still fails it.
    if offending:
        status = "fail"
    elif compared == 0 or invalid_pairs:
        status = "not probed"
    else:
        status = "pass"
    return {"status": status, "scorer": target.scorer_name, "resolution": target.resolution,
            "pairs_compared": compared, "pairs_invalid": invalid_pairs,
            "samples_compared": samples, "offending": offending,
            "by_probe": summarize_probes(cells),
            "cells_invalid": sum(1 for c in cells if c["status"] == "INVALID"),
            "invalid_reasons": invalid_reasons(cells),
            "truth_excluded": {"cells": sum(1 for c in cells if c["truth"] is None),
                               "pairs": truth_unknown_pairs},
            "cells": cells}


def invalid_reasons(cells: list[dict[str, Any]], top: int = TOP_REASONS) -> list[dict[str, Any]]:
    """Return the most common reasons cells are INVALID, with counts (ties by reason text)."""
    counts = Counter(c["message"] or "no reason given" for c in cells
                     if c["status"] == "INVALID")
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [{"reason": reason, "cells": n} for reason, n in ranked[:top]]


def summarize_probes(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return per probe: mean scorer score, mean ground truth, n, and INVALID count.

    The ground-truth mean is over the cells whose truth was decided; the others are counted in
    `truth_excluded`, never averaged as 0.
    """
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in cells:
        groups[c["probe"]].append(c)
    out = []
    for name, cs in groups.items():
        vals = [c["score"] for c in cs if c["score"] is not None]
        truths = [c["truth"] for c in cs if c["truth"] is not None]
        out.append({
            "probe": name, "n": len(cs),
            "score_mean": plain_mean(vals) if vals else None,
            "score_min": min(vals) if vals else None,
            "truth_mean": sum(truths) / len(truths) if truths else None,
            "truth_excluded": len(cs) - len(truths),
            "invalid": sum(1 for c in cs if c["status"] == "INVALID"),
        })
    return out


def offending_summary(result: dict[str, Any]) -> list[str]:
    """Return the offending probe relations as 'probe = correct' or 'probe > correct' labels."""
    seen: dict[str, str] = {}
    for o in result["offending"]:
        seen.setdefault(o["probe"], "=" if o["relation"] == "tie" else ">")
    return [f"{p} {rel} correct" for p, rel in seen.items()]
