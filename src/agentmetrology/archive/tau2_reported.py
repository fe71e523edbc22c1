"""Recomputed vs reported: the pass^1 (and pass^k) a tau2 file's simulations give, beside the
number the file or its leaderboard submission claims.

A claim comes from `--reported FILE`, else a `submission.json` beside the results file (or one
folder up, the leaderboard's `trajectories/` layout), else the file's own custom top level
(`pass_rate`, `passed`, `total_tasks`). A submission's `results.<domain>.pass_k` are
percentages and its `cost` the average cost of one trajectory. A difference larger than the
claim's own rounding (half a unit of its last written decimal) is a finding, shown with the
denominators that explain it: passes over planned episodes, over simulations present, over
graded ones.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any

from agentmetrology.archive.coverage import tie_threshold
from agentmetrology.archive.importers.limits import count, parse_json, without_bom
from agentmetrology.archive.importers.tau2_sim import a_cost
from agentmetrology.archive.model import ArchiveFormatError
from agentmetrology.archive.passk import pass_hat_k_fraction
from agentmetrology.records.numbers import finite_float

SUBMISSION = "submission.json"
MAX_CLAIM_BYTES = 4 << 20
MAX_K = 8


def _as_written(raw: Any, value: float) -> float | int:
    """Return a claimed number as the file wrote it: an integer stays one (`12` is rounded to
    the unit, half a unit either way; as the float 12.0 its tolerance was a tenth of that)."""
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else value


def _tolerance(value: float) -> Fraction:
    """Return half a unit of the last decimal written in the shortest repr of `value`."""
    try:
        exp = Decimal(repr(value)).as_tuple().exponent
    except InvalidOperation:
        return Fraction(0)
    return Fraction(1, 2) * Fraction(10) ** exp if isinstance(exp, int) else Fraction(0)


def _decimal(value: float | int, percent: bool) -> Fraction:
    """Return a claimed number exactly as its shortest repr writes it (a percentage over 100).

    A claim is a decimal: 0.3 is three tenths, not the binary float 0.29999999999999998, and
    58.2 / 100 is not 0.5820000000000001. Compared in binary, a recomputed value exactly half a
    unit of the last decimal away (0.35 from 0.3) fell on the wrong side of the tolerance.
    """
    exact = Fraction(Decimal(repr(value)))
    return exact / 100 if percent else exact


def read_claim(path: Path) -> dict[str, Any]:
    """Return the parsed claim file (a submission.json or a custom top level); one-line errors."""
    try:
        raw = path.read_bytes()
        if len(raw) > MAX_CLAIM_BYTES:
            raise ArchiveFormatError(f"{path.name}: larger than {MAX_CLAIM_BYTES >> 20} MiB; "
                                     "a reported-results file is a small JSON object")
        data = parse_json(without_bom(raw))
    except OSError as exc:
        raise ArchiveFormatError(f"{path.name}: cannot be read ({exc.strerror})") from exc
    except (UnicodeDecodeError, ValueError) as exc:
        raise ArchiveFormatError(f"{path.name}: does not parse as JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ArchiveFormatError(f"{path.name}: a reported-results file must be a JSON object "
                                 "(a leaderboard submission.json or a top level with pass_rate)")
    return data


def find_claim(results_file: Path, given: Path | None) -> tuple[str, dict[str, Any], Path] | None:
    """Return (source, parsed claim, path) from --reported, or a submission.json beside the
    results file or one folder up; None when there is neither."""
    if given is not None:
        return f"--reported {given.name}", read_claim(given), given
    for folder in (results_file.parent, results_file.parent.parent):
        candidate = folder / SUBMISSION
        if candidate.is_file():
            return f"{folder.name}/{SUBMISSION}", read_claim(candidate), candidate
    return None


def _claimed(claim: dict[str, Any], domain: str | None) -> dict[str, Any]:
    """Return the claimed pass^k (fractions), passed, total and cost from either claim shape."""
    results = claim.get("results")
    if isinstance(results, dict):
        dom = results.get(domain or "") if domain else None
        if not isinstance(dom, dict):
            return {"error": f"results has no entry for domain {domain!r}"}
        written = {k: _as_written(dom.get(f"pass_{k}"), v) for k in range(1, MAX_K + 1)
                   if (v := a_rate(dom.get(f"pass_{k}"))) is not None}
        keys = [f"pass_{k}" for k in range(1, MAX_K + 1)] + ["cost"]
        return {"pass_k": {k: _decimal(v, True) for k, v in written.items()}, "written": written,
                "percent": True, "cost": a_cost(dom.get("cost")),
                "unreadable": _unreadable(dom, keys, f"results.{domain}.")}
    rate = a_rate(claim.get("pass_rate"))
    percent = rate is not None and rate > 1.0
    written = {1: _as_written(claim.get("pass_rate"), rate)} if rate is not None else {}
    return {"pass_k": {k: _decimal(v, percent) for k, v in written.items()}, "written": written,
            "percent": percent, "passed": count(claim.get("passed")),
            "total_tasks": count(claim.get("total_tasks")),
            "unreadable": _unreadable(claim, list(REPORTED_READERS), "")}


def a_rate(value: Any) -> float | None:
    """Return a claimed pass rate (a fraction, or percent above 1), or None when it is no rate:
    not a finite number, or outside [0, 100] (-5 was compared as -0.05, a "disagreement")."""
    rate = finite_float(value)
    return rate if rate is not None and 0 <= rate <= 100 else None


# How claimed numbers are read: a rate in [0, 100] (a fraction when at most 1), a cost as a
# simulation's (finite, from 0 to MAX_COST), a count a whole number >= 0.
REPORTED_READERS = {"pass_rate": a_rate, "passed": count, "total_tasks": count, "cost": a_cost}


def _unreadable(part: dict[str, Any], keys: list[str], where: str) -> list[str]:
    """Return `where+key: value` for each claimed number present but not readable as one (a
    string "55.0", NaN, a fraction of a task, a rate of -5 or a negative cost): said, never
    read as no claim at all."""
    read = {k: REPORTED_READERS.get(k, a_rate) for k in keys}
    return [f"{where}{k}: {json.dumps(part[k])[:40]}" for k in keys
            if part.get(k) is not None and read[k](part[k]) is None]


def _pass1_row(got: Fraction, percent: bool, raw: float, n: dict[str, int]) -> dict[str, Any]:
    """Return the pass^1 comparison: recomputed on each denominator, and whether it agrees."""
    tol = _tolerance(raw) / (100 if percent else 1)
    bases = {"planned": n["planned"], "simulations_present": n["present"], "graded": n["graded"]}
    recomputed = {k: Fraction(n["passes"], d) if d else None for k, d in bases.items()}
    agree = {k: v is not None and abs(v - got) <= tol for k, v in recomputed.items()}
    tie = tie_threshold(n["planned"], n["passes"], n["planned"] - n["graded"],
                        got.denominator, got.numerator, 0) if n["planned"] else None
    return {"reported": float(got), "tolerance": float(tol),
            "recomputed": {k: None if v is None else float(v) for k, v in recomputed.items()},
            "agrees_with": [k for k, ok in agree.items() if ok],
            "finding": not agree["planned"], "denominators": bases,
            "unresolved_pass_fraction_to_reach": None if tie is None else tie.intercept,
            "reachable": None if tie is None else tie.possible}


def reported_section(claim: tuple[str, dict[str, Any]] | None, top_level: dict[str, Any],
                     domain: str | None, n: dict[str, int], pass_k: list[float | None],
                     cost: dict[str, Any],
                     per_task: Sequence[tuple[int, int]]) -> dict[str, Any]:
    """Return the recomputed-vs-reported section (n: passes, planned, present, graded;
    per_task: (planned trials, passes) of each task, for the exact pass^k)."""
    if claim is None and top_level:
        claim = ("the file's own top level", top_level)
    if claim is None:
        return {"applicable": False, "reason": "no reported number: no custom top level, no "
                                               "submission.json beside the file, no --reported"}
    source, data = claim
    c = _claimed(data, domain)
    if "error" in c:
        return {"applicable": False, "source": source, "reason": c["error"]}
    rows = []
    for k, v in sorted(c["pass_k"].items()):
        # The number as written, not v * 100: 13.6 / 100 * 100 is 13.600000000000001, whose
        # last decimal would shrink the claim's rounding tolerance to 5e-17.
        raw = c["written"][k]
        if k == 1:
            rows.append({"k": 1, **_pass1_row(v, c["percent"], raw, n)})
            continue
        mine = pass_k[k - 1] if k <= len(pass_k) else None
        tol = _tolerance(raw) / (100 if c["percent"] else 1)
        # Compared exactly (the float curve is off by ~1e-17, enough to cross a tolerance
        # that the recomputed value meets exactly, as pass^2 of 2 trials can).
        exact = pass_hat_k_fraction(per_task, k) if mine is not None else None
        row: dict[str, Any] = {"k": k, "reported": float(v), "tolerance": float(tol),
                               "recomputed_planned": mine,
                               "finding": exact is None or abs(exact - v) > tol}
        if mine is None:  # a finding of another kind than a disagreement: said as such
            row["unsupported"] = (f"the file's simulations give no pass^{k} (no task has {k} "
                                  "trials), so the claim rests on runs the file does not hold")
        rows.append(row)
    bad = c["unreadable"]
    if not rows and all(c.get(k) is None for k in ("passed", "total_tasks", "cost")):
        why = "no reported number could be read" + (f" ({'; '.join(bad)})" if bad else "")
        return {"applicable": False, "source": source, "reason": why, "unreadable": bad}
    out: dict[str, Any] = {"applicable": True, "source": source, "rows": rows,
                           "findings": sum(bool(r["finding"]) for r in rows),
                           "unsupported": sum("unsupported" in r for r in rows),
                           "unreadable": bad}
    for key, mine in (("passed", n["passes"]), ("total_tasks", n["tasks"])):
        if c.get(key) is not None:
            out[key] = {"reported": c[key], "recomputed": mine, "finding": c[key] != mine}
            out["findings"] += int(c[key] != mine)
    if c.get("cost") is not None:
        out["cost"] = _cost_claim(c["cost"], cost)
        out["findings"] += int(bool(out["cost"]["finding"]))
    return out


def _cost_claim(claimed: float, cost: dict[str, Any]) -> dict[str, Any]:
    """Return the claimed average trajectory cost beside the agent-only and agent+user ones."""
    tol = float(_tolerance(claimed))
    if cost.get("unpriced"):
        return {"reported": claimed, "comparable": False, "finding": False,
                "reason": "the agent's cost is unpriced: no comparison"}
    mine = {"agent": cost.get("agent_per_simulation"),
            "agent_and_user": cost.get("total_per_simulation")}
    if all(v is None for v in mine.values()):
        return {"reported": claimed, "comparable": False, "finding": False,
                "reason": "a simulation recorded no usable agent cost: no comparison"}
    agree = [k for k, v in mine.items() if v is not None and abs(v - claimed) <= max(tol, 1e-9)]
    return {"reported": claimed, "comparable": True, "recomputed": mine, "agrees_with": agree,
            "tolerance": tol, "finding": not agree}

