"""The verdict of one `agm stats compare` comparison: the one sentence a reader acts on.

The label (`result.equivalence.label`) is the spec's rule on the bootstrap intervals; the
Holm-adjusted sign-flip test (`holm_rejects`) is the exact test over the family. They can
disagree with few units (8 pairs: the 95% interval excludes 0, the sign-flip p is 0.0625), so
the verdict joins them here, once, for the JSON and the terminal alike: a `different` label the
test does not confirm is "different, but not confirmed". Below the label's minimum (6 units,
SIGN_FLIP_MINIMUM) the verdict is withheld as "insufficient evidence (n = k, needs 6)".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentmetrology.records.verdict import INSUFFICIENT, Verdict

UNCONFIRMED = "different, but not confirmed"


def _why(label: str, rejects: bool, eq: Mapping[str, Any]) -> str:
    """Return why a label and the family's test give the verdict they give."""
    if label == "different":
        return ("the 95% interval excludes 0 and the Holm-adjusted sign-flip test rejects"
                if rejects else
                "the 95% interval excludes 0, but the Holm-adjusted sign-flip test does not "
                "reject: the difference is not confirmed; more units would tell")
    if label == "equivalent":
        real = ("; the 95% interval excludes 0: a real difference smaller than the margin"
                if eq.get("excludes_zero") else "")
        return f"the 90% interval lies inside [-{eq['margin']:g}, {eq['margin']:g}]{real}"
    why = "the 95% interval covers 0 and the 90% interval is not inside the margin"
    return why + ("; the Holm-adjusted sign-flip test rejects, so more units may tell"
                  if rejects else "")


def comparison_verdict(result: Mapping[str, Any], holm_rejects: bool) -> dict[str, Any]:
    """Return the verdict of a comparison (its `result` document and its Holm decision)."""
    eq = result["equivalence"]
    label = str(eq["label"])
    verdict = UNCONFIRMED if label == "different" and not holm_rejects else label
    n = int(result["n_units"])
    counted = f"{result['unit']}s"
    minimum = int(eq.get("minimum", 0))
    # the 95% interval the label read, whatever --confidence the mean difference is printed at:
    # at 0.99 that one can cover 0 beside a `different` label
    iv = eq.get("interval")
    if label == INSUFFICIENT:
        # below the minimum; or at it, without intervals (a stratum of fewer than 3 clusters)
        why = (f"the label needs {minimum} {counted}, the fewest with which an exact sign-flip "
               "test can reach p < 0.05" if n < minimum else
               str(eq.get("interval_note") or "no interval"))
        v = Verdict(INSUFFICIENT, n, counted, minimum, why=why)
    else:
        v = Verdict.judged(
            verdict, n, counted, minimum, why=_why(label, holm_rejects, eq),
            interval=None if not iv else (float(iv[0]), float(iv[1])),
            confidence=0.95 if iv else None,
            interval_of="mean difference b - a (the interval the label reads)" if iv else "")
    # confirmed: whether the exact test backs a `different` label (None for any other verdict)
    return {**v.to_dict(), "confirmed": holm_rejects if label == "different" else None}
