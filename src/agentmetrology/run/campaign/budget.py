"""Campaign-wide spending limits: what the ledger says was spent, plus each answered request."""

from __future__ import annotations

import math

from agentmetrology.records.episode import BillableAttempt
from agentmetrology.run.campaign.spec import Limits
from agentmetrology.store.evidence import EpisodeEvidence
from agentmetrology.store.status import Counts


def known_cost(cost: float | None) -> float | None:
    """Return `cost` if it is a cost (finite, >= 0), else None: unknown, never money back."""
    return cost if cost is not None and math.isfinite(cost) and cost >= 0 else None


class Budget:
    """Campaign-wide spending limits, checked before each LLM launch.

    Starts from the ledger's totals (recorded episodes, superseded ones, and the requests of
    attempts that never recorded an episode), then counts each request as it is answered.
    Unknown cost is treated conservatively: one request or episode whose cost is unknown (no
    price, no token counts, or counts no bill can have) stops LLM launches under `max_cost`,
    because the cap can no longer be checked; a negative cost counts as unknown. So do unknown
    token counts under `max_tokens` (`spent.tokens_unknown`: the campaign's requests without
    them).
    """

    def __init__(self, limits: Limits, spent: Counts) -> None:
        self.limits = limits
        self.cost = spent.cost
        self.cost_unknown = spent.cost_unknown
        self.tokens = spent.input_tokens + spent.output_tokens
        self.tokens_unknown = spent.tokens_unknown
        # What each running attempt's requests added so far: (cost, unknown, tokens).
        self._streamed: dict[int, tuple[float, bool, int]] = {}

    def bill(self, attempt_id: int, ba: BillableAttempt) -> None:
        """Count one answered request of a running attempt."""
        cost, unknown, tokens = self._streamed.get(attempt_id, (0.0, False, 0))
        n = (ba.input_tokens or 0) + (ba.output_tokens or 0)
        self.tokens_unknown += int(ba.input_tokens is None or ba.output_tokens is None)
        known = known_cost(ba.cost)
        self.cost += known or 0.0
        self.tokens += n
        if known is None and not unknown:
            self.cost_unknown += 1
        self._streamed[attempt_id] = (cost + (known or 0.0), unknown or known is None,
                                      tokens + n)

    def add(self, attempt_id: int, ev: EpisodeEvidence) -> None:
        """Count a recorded episode's spending in place of what its requests added."""
        cost, unknown, tokens = self._streamed.pop(attempt_id, (0.0, False, 0))
        known = known_cost(ev.cost)
        self.cost += (known or 0.0) - cost
        self.cost_unknown += int(known is None) - int(unknown)
        self.tokens += ev.input_tokens + ev.output_tokens - tokens

    def exceeded(self) -> str | None:
        """Return why no more spending is allowed, or None."""
        lim = self.limits
        if lim.max_cost is not None:
            if self.cost_unknown:
                return (f"budget: max_cost {lim.max_cost:g} cannot be checked, {self.cost_unknown}"
                        " episode(s) or unfinished attempt(s) have unknown cost (a price is "
                        "missing, or the server reported no token counts or counts no bill "
                        "can have)")
            if self.cost >= lim.max_cost:
                # six decimals, as every cost prints (report.money), never "5e-05"; a spend
                # below a millionth (a max_cost that small) keeps its digits
                spent = f"{self.cost:.6f}" if self.cost >= 5e-7 else f"{self.cost:.6g}"
                return f"budget: max_cost {lim.max_cost:g} reached (spent {spent})"
        if lim.max_tokens is not None:
            if self.tokens_unknown:
                return (f"budget: max_tokens {lim.max_tokens} cannot be checked, "
                        f"{self.tokens_unknown} request(s) have unknown token counts (the "
                        "server reported none, or counts no bill can have)")
            if self.tokens >= lim.max_tokens:
                return f"budget: max_tokens {lim.max_tokens} reached (used {self.tokens})"
        return None
