"""How reports, terminal tables and the viewer print a known cost: one fixed format everywhere.

Six decimals, the precision `--json` rounds costs to (a millionth: one token at a price of 1 per
million tokens), so a table and its JSON show the same number and costs of every size line up
in a column ("0.000040" above "0.000100", never "4e-05" beside "0.0001"). A cost that is not 0
never prints as 0: one below half a millionth prints "<0.000001". An unknown cost is never
given here: its text says it is unknown (campaign_text.cost_text, run_table.cost_text).
"""

from __future__ import annotations

DECIMALS = 6
_TINY = "<0.000001"


def money(cost: float) -> str:
    """Return a known cost with six decimals ("<0.000001" for a non-zero cost that rounds to
    0, "0.000000" for 0 and -0.0)."""
    text = f"{cost:.{DECIMALS}f}"
    if text.lstrip("-").strip("0.") == "":  # rounds to zero
        return f"{0:.{DECIMALS}f}" if cost == 0 else (_TINY if cost > 0 else ">-0.000001")
    return text
