"""The number guard as a yes/no test for LLM proposal prose (audit/proposals.py)."""

from __future__ import annotations

from typing import Any

from agentmetrology.report.numberguard import NumberGuard, NumberGuardError


def passes(prose: str, shown: Any) -> bool:
    """Return True when every number in `prose` appears in `shown` (what the model was shown)."""
    try:
        NumberGuard(shown).check(prose)
    except NumberGuardError:
        return False
    return True
