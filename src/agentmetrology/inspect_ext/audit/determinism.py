"""Is a scorer deterministic? Every output it scored, scored twice, compared (docs/inspect.md).

A scorer whose verdict on the same output changes between calls (random, time-dependent, an LLM
judge at temperature > 0) makes every verdict the audit read from it unreliable: the criterion
row, a kind read from its scores and the do-nothing pass rate rest on single draws. The card's
`scorer_determinism` row says on how many outputs scored twice the two verdicts agreed; when any
disagree, the rows resting on those verdicts read `insufficient evidence` and no claim is
licensed. An output is compared when at least one of its two calls returned a number (two
INVALID calls are no verdict to compare); a number against an INVALID verdict is a
disagreement, but not against a call that timed out or raised: that is a measurement failure
(a slow call, a judge's 429), not a verdict, so the output is not compared and counted apart.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.audit.card import CLAIMS, judged_status, row
from agentmetrology.audit.target import ScoreOutcome
from agentmetrology.inspect_ext.audit.kind import FROM_SCORES
from agentmetrology.inspect_ext.audit.scorer_call import RAISED, TIMED_OUT
from agentmetrology.records.verdict import INSUFFICIENT, Verdict
from agentmetrology.stats.intervals import wilson

__all__ = ["ROW", "apply_determinism", "determinism_row"]

ROW = "scorer_determinism"
COUNTED = "outputs scored twice"
MAX_LISTED = 10  # disagreements listed in the evidence (all are counted)
Cells = dict[tuple[str, str], ScoreOutcome]


def _same(a: ScoreOutcome, b: ScoreOutcome, resolution: float) -> bool:
    """Return whether two calls gave the same verdict: both no number, or two numbers within
    the audit's resolution (a gap the criterion reads as a tie is no change of verdict)."""
    if a.value is None or b.value is None:
        return a.value is None and b.value is None
    return abs(a.value - b.value) <= resolution


FAILED_CALL = (TIMED_OUT, RAISED)  # run.call_scorer's messages of no verdict


def _failed(c: ScoreOutcome) -> bool:
    """Return whether a call gave no verdict at all (timed out or raised)."""
    return c.value is None and c.message.startswith(FAILED_CALL)


def _said(c: ScoreOutcome) -> float | str:
    return c.value if c.value is not None else f"INVALID: {c.message}"[:120]


def determinism_row(first: Cells, second: Cells, resolution: float) -> dict[str, Any]:
    """Return the card row comparing each output's two verdicts: pass when every compared pair
    agreed (within `resolution`), fail when any disagreed, not probed when no output was scored
    twice with a number."""
    pairs = sorted((k, first[k], second[k]) for k in second if k in first)
    scored = [(k, a, b) for k, a, b in pairs if a.value is not None or b.value is not None]
    compared = [(k, a, b) for k, a, b in scored if not (_failed(a) or _failed(b))]
    differ = [(k, a, b) for k, a, b in compared if not _same(a, b, resolution)]
    n, k = len(compared), len(differ)
    evidence: dict[str, Any] = {
        "outputs_scored_twice": n, "disagreeing": k,
        # scored once (a timeout, no judge), INVALID twice, or a number beside a call that
        # timed out or raised (a measurement failure, no verdict)
        "not_compared": len(first) - n,
        "not_compared_failed_call": len(scored) - n,
        "disagreements": [{"task": sid, "probe": probe, "first": _said(a), "second": _said(b)}
                          for (sid, probe), a, b in differ[:MAX_LISTED]]}
    if not n:
        evidence["reason"] = ("no output was scored twice with a number" if not scored else
                              "every output scored with a number had a call that timed out or "
                              "raised (a measurement failure, no verdict to compare)")
        return row("not probed", evidence, None)
    est = wilson(k, n)
    verdict = Verdict("non-deterministic" if k else "deterministic", n, COUNTED, 1,
                      interval=est.interval, confidence=est.confidence,
                      interval_of="share of outputs whose verdict changes between two calls",
                      why="the same output scored twice on the same state").to_dict()
    status = "fail" if k else "pass"
    verdict["verdict"] = status  # the row prints its sentence, never `pass (n = ...)`
    failed = len(scored) - n  # said beside the verdict: those outputs were not compared
    verdict["text"] = (f"non-deterministic: {k} of {n} {COUNTED} disagreed" if k
                       else f"deterministic on {n} of {n} {COUNTED}") + (
        f" ({failed} more not compared: a call timed out or raised)" if failed else "")
    evidence["verdict"] = verdict
    return row(status, evidence, [[sid, probe, _said(a), _said(b)]
                                  for (sid, probe), a, b in compared])


def apply_determinism(config: dict[str, Any], kind: dict[str, Any],
                      det: dict[str, Any]) -> None:
    """Add the determinism row to a configuration; a non-deterministic scorer's criterion, a
    kind read from its scores and its do-nothing pass rate are withheld, and no claim stands."""
    config["rows"][ROW] = det
    if det["status"] != "fail":
        return
    ev = det["evidence"]
    why = (f"the scorer is non-deterministic: {ev['disagreeing']} of "
           f"{ev['outputs_scored_twice']} {COUNTED} got different verdicts")
    crit = config["rows"]["criterion_sensitivity"]
    if crit["status"] != "not probed":
        _withhold(crit, why)
    if kind["verdict"]["why"].split(" (withheld")[0] in FROM_SCORES:
        _withhold(config["rows"]["scorer_kind"], why)
        kind["verdict"] = config["rows"]["scorer_kind"]["evidence"]["verdict"]
        kind["kind"] = config["scorer_kind"] = f"{INSUFFICIENT} (non-deterministic scorer)"
        kind["basis"] = f"withheld: {kind['basis']}; {why}"
    if kind.get("empty_trajectory"):
        kind["empty_trajectory"]["unreliable"] = why
        kind["empty_trajectory"]["pass_rate"] = None  # a rate of single draws is no rate
    config["licensed_claim"] = CLAIMS["none"]


def _withhold(cell: dict[str, Any], why: str) -> None:
    """Make a row read `insufficient evidence` because its verdicts are single draws, keeping
    what it judged as `evidence.withheld` and its verdict's n."""
    ev = cell.setdefault("evidence", {})
    ev["withheld"] = judged_status(cell)
    cell["status"] = INSUFFICIENT
    ev["reason"] = why
    v = ev.get("verdict")
    if v:
        ev["verdict"] = Verdict(INSUFFICIENT, v["n"], v["counted"], v["minimum"],
                                why=why).to_dict()
