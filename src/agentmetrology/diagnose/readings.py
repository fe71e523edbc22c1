"""Readings derived from named predicates over a group's printed numbers (docs/diagnose.md).

A reading is a sentence about a policy; it must never contradict the numbers printed beside it.
So it is not computed from the numbers directly but from six named predicates over them, each
printed with the reading, and the table in `read` is the only place a reading is chosen (a test
walks every combination of predicate values). A predicate is None when its number does not
exist (no inverse map, no comparison) or its test was not run (`untested` says why: a label by
construction, fewer than MIN_TASKS tasks, a rescored gap without an interval); None never
satisfies a predicate a reading requires.
"""

from __future__ import annotations

from typing import Any, Literal

from agentmetrology.mutations import get_mutation
from agentmetrology.records.verdict import INSUFFICIENT, Verdict, counted_as, n_counted
from agentmetrology.stats.equivalence import SIGN_FLIP_MINIMUM

ALPHA = 0.05  # level of the Holm-adjusted difference and equivalence tests
# The fewest tasks a reading is given from, as `agm stats compare` labels a comparison: with
# fewer than 6 clusters no exact test can reach p < 0.05 (the sign-flip test's least p is
# 2 / 2**n: 0.25 at 3 tasks), while the task-cluster bootstrap's p reaches its floor, 2 / (B +
# 1), whenever every task's gap has one sign. Read at 3 tasks, that p made a "behavioural
# failure" (Holm p 0.008) beside a sign-flip p of 0.25, where `stats compare` on the same rows
# said insufficient evidence. From 6 tasks on a reading is given, but inside a Holm family of k
# the exact test needs 2 / 2**n * k < 0.05 (9 tasks for a family of 8), so a group's difference
# p is never below its sign-flip p (metrics.difference_p): the bootstrap p at its floor read
# "behavioural failure" at 6 tasks in a family of 8 (Holm 0.008, the sign-flip p 0.25 after Holm).
MIN_TASKS = SIGN_FLIP_MINIMUM
PREDICATES = ("different", "equivalent", "rescoring_closes", "behaviour_changed", "fails_both",
              "loses_passes")
TESTED = {"difference": "different", "equivalence": "equivalent"}  # Holm test -> its predicate
Predicates = dict[str, bool | None]
Kind = Literal["control", "evaluator", "mutation"]

WHY = {
    "repeat control": "the identity mutation: how much outcomes move by chance",
    "evaluator change (by construction)": ("the mutation changes the scorer itself, so its gap "
                                           "measures the new rubric, not the agent"),
    "fails regardless": "fails in both conditions (MSR 0): a small gap here is not robustness",
    "small gap, passes lost": ("equivalent within the margin (Holm-adjusted), but more than the "
                               "margin's share of the passing originals fail under the mutation "
                               "(MTR below 1 - margin): the small gap sits at the pass threshold, "
                               "so it is not robustness"),
    "robust": ("equivalent within the margin (Holm-adjusted), the operations did not change and "
               "the passing originals keep passing (MTR at least 1 - margin, or no original "
               "passes)"),
    "robust score, changed behaviour": ("equivalent within the margin (Holm-adjusted), but the "
                                        "operations or outcomes changed"),
    "evaluator sensitivity": ("the gap is real, the operations did not change, and it closes when "
                              "the same trajectories are rescored under the inverse map"),
    "behavioural failure": ("the gap is real, the operations or outcomes changed, and rescoring "
                            "does not close it"),
    "score change without behaviour change": ("the gap is real and rescoring does not close it, "
                                              "but the operations and outcomes did not change: "
                                              "the mutation moved the score, not the agent"),
    "inconclusive": "neither a real gap nor equivalence within the margin, or mixed evidence",
}
READINGS = tuple(WHY)
# Without an inverse map (wording, constraint, ...) nothing was rescored: the gap cannot be the
# evaluator's to undo, so the reading stands, but its why must not claim a rescoring happened.
NOT_RESCORED = ("rescoring does not close it",
                "there is no inverse map to rescore under (rescored gap n/a)")


def why_of(reading: str, m: dict[str, Any]) -> str:
    """Return why a reading holds, said of the rescoring that was (or was not) done and read."""
    why = WHY[reading]
    if m.get("rescored_gap") is None:
        return why.replace(*NOT_RESCORED)
    unread = _unread(m)
    return f"{why}; rescoring {unread}" if unread and reading == "inconclusive" else why


def _unread(m: dict[str, Any]) -> str | None:
    """Return why a group's rescored gap cannot say whether rescoring closes the gap (it has no
    interval: fewer than 3 tasks rescored), or None when it can or there is none."""
    resc = m.get("rescored_gap")
    if resc is None or resc.get("interval"):
        return None
    return f"not read: the rescored gap has {resc.get('interval_note') or 'no interval'}"


def rescoring_unread(m: dict[str, Any]) -> bool:
    """Return True when a group has a rescored gap but no interval to read it by."""
    return _unread(m) is not None


def kind_of(mutation: str) -> Kind:
    """Return whether a mutation is the repeat control, an evaluator change, or diagnosable."""
    side = get_mutation(mutation).side
    return "control" if side == "none" else "evaluator" if side == "scorer" else "mutation"


def _covers_zero(est: dict[str, Any]) -> bool:
    iv = est["interval"]
    return bool(iv[0] <= 0 <= iv[1])


def adjusted_p(m: dict[str, Any], test: str) -> float | None:
    """Return a group's Holm-adjusted p of `test` (a group read alone is a family of one)."""
    paired = m.get("paired") or {}
    holm = (paired.get("holm") or {}).get(test)
    return holm if holm is not None else (paired.get("p_values") or {}).get(test)


def testable(m: dict[str, Any], kind: Kind) -> bool:
    """Return True when a group's difference and equivalence tests are run (and Holm-adjusted)."""
    return kind == "mutation" and int(m.get("tasks") or 0) >= MIN_TASKS and bool(
        (m.get("paired") or {}).get("p_values"))


def untested(m: dict[str, Any], kind: Kind) -> dict[str, str]:
    """Return why a group's different/equivalent/rescoring_closes predicates were not tested
    or read (empty if all were)."""
    out = {} if testable(m, kind) else dict.fromkeys(TESTED.values(), _not_tested(m, kind))
    unread = _unread(m)
    return out if unread is None else {**out, "rescoring_closes": unread}


def _not_tested(m: dict[str, Any], kind: Kind) -> str:
    """Return why a group's difference and equivalence tests were not run."""
    tasks = int(m.get("tasks") or 0)
    if kind != "mutation":
        what = "the repeat control" if kind == "control" else "an evaluator change"
        why = f"not tested: {what} is a label, outside the Holm family"
    elif tasks < MIN_TASKS:
        why = (f"insufficient: {n_counted(tasks, 'tasks')}, the test needs {MIN_TASKS} "
               "(outside the Holm family)")
    else:
        why = f"not tested: {(m.get('paired') or {}).get('note') or 'no paired comparison'}"
    return why


def predicates(m: dict[str, Any], margin: float, rates: dict[str, Any] | None = None,
               kind: Kind = "mutation") -> Predicates:
    """Return the named predicates of a group's numbers (at the pass rates `rates`, if given).

    A "different" or "equivalent" rests on its Holm-adjusted test only: where that test is not
    run (a label by construction, fewer than MIN_TASKS tasks, no comparison) the predicate is None.
    """
    run = testable(m, kind)
    p_diff = adjusted_p(m, "difference") if run else None
    p_eq = adjusted_p(m, "equivalence") if run else None
    resc = m.get("rescored_gap")
    changed = m.get("behaviour_changed")
    r = rates if rates is not None else m
    msr, msr_original, mtr = r.get("msr"), r.get("msr_original"), r.get("mtr")
    return {
        "different": None if p_diff is None else p_diff < ALPHA,
        "equivalent": None if p_eq is None else p_eq < ALPHA,
        # read off the rescored gap's interval only: without one (fewer than 3 tasks) it is n/a
        "rescoring_closes": None if resc is None or rescoring_unread(m) else bool(
            _covers_zero(resc) and abs(resc["value"]) < margin),
        "behaviour_changed": None if changed is None else changed > 0,
        "fails_both": None if msr is None or msr_original is None else (
            msr == 0 and msr_original == 0),
        # MTR is undefined (None) when no original passes: then no pass could be lost
        "loses_passes": None if mtr is None else mtr < 1.0 - margin,
    }


def read(p: Predicates, kind: Kind, unread: bool = False) -> str:
    """Return the one reading a combination of predicates supports (the only such table).

    `unread`: a rescored gap exists but has no interval, so its n/a `rescoring_closes` does not
    mean "does not close" (as it does without an inverse map): a real gap stays inconclusive.
    """
    if kind == "control":
        return "repeat control"
    if kind == "evaluator":
        return "evaluator change (by construction)"
    if p["fails_both"] is True:
        return "fails regardless"
    changed = p["behaviour_changed"]
    if p["equivalent"] is True and changed is not None:
        if p["loses_passes"] is True:  # a small mean gap that fails the passing originals
            return "small gap, passes lost"
        return "robust score, changed behaviour" if changed else "robust"
    if p["different"] is True and not unread:
        closes = p["rescoring_closes"] is True
        if changed is False:
            return "evaluator sensitivity" if closes else "score change without behaviour change"
        if changed is True and not closes:
            return "behavioural failure"
    return "inconclusive"


def _minimum(kind: Kind) -> int:
    """Return the tasks a reading of this kind needs (labels by construction need none)."""
    return 0 if kind != "mutation" else MIN_TASKS


def withheld(reading: str, m: dict[str, Any], kind: Kind) -> str:
    """Return the reading as it may be printed: "insufficient evidence" below the minimum."""
    return INSUFFICIENT if int(m.get("tasks") or 0) < _minimum(kind) else reading


def verdict_of(m: dict[str, Any], mutation: str, margin: float,
               sweep: dict[str, str] | None = None) -> Verdict:
    """Return a group's reading as a Verdict: n tasks, the VRG interval, the sweep's readings."""
    kind = kind_of(mutation)
    p = predicates(m, margin, kind=kind)
    chosen = read(p, kind, rescoring_unread(m))
    vrg = m.get("vrg") or {}
    iv = vrg.get("interval")
    # The other thresholds' readings are compared with the reading as printed: a withheld
    # reading is withheld at every threshold, so it is never "unstable" (it says nothing).
    return Verdict.judged(
        chosen, int(m.get("tasks") or 0), counted_as(int(m.get("tasks") or 0), "tasks"),
        _minimum(kind),
        interval=None if not iv else (float(iv[0]), float(iv[1])),
        confidence=0.95 if iv else None, interval_of="VRG (task-cluster bootstrap)" if iv else "",
        consistent=tuple(sorted(set((sweep or {}).values()) | {withheld(chosen, m, kind)})),
        # below the minimum no test was run: the why says so, not what a test would have said
        why=untested(m, kind)["different"] if withheld(chosen, m, kind) == INSUFFICIENT
        else why_of(chosen, m))
