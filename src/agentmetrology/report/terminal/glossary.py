"""One line under a table explaining the reliability terms it prints (issue 39 item 5).

Every table that prints one of these abbreviations ends with `glossary_line` of the ones it
shows, so a reader never needs the docs to read a column; the definitions are docs/diagnose.md's
and docs/stats.md's, in a few words each.
"""

from __future__ import annotations

from collections.abc import Iterable

GLOSSARY: dict[str, str] = {
    "VRG": "S(original) - S(mutated), positive when the mutation lowers the score",
    "rescored": "the gap after rescoring the mutated trajectory under the inverse map",
    "MSR": "Pr[S(mutated) >= tau] (--tau)",
    "MTR": "Pr[S(mutated) >= tau | S(original) >= tau]",
    "PTD": "proxy reward minus task quality (P - H)",
    "CVaR": "mean of the worst alpha fraction of runs",
    "Rel": "Reliability@tau, the fraction of runs scoring >= tau",
    "gap": "mean minus worst",
}


def glossary_line(terms: Iterable[str]) -> str:
    """Return 'TERM: meaning; ...' for the `terms` a table shows (suffixes like @0.2 dropped)."""
    parts = []
    for term in terms:
        key = term.split("@", 1)[0].split("_", 1)[0]
        if key in GLOSSARY:
            parts.append(f"{term}: {GLOSSARY[key]}")
    return "; ".join(parts)
