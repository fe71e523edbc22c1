"""The two estimands of a tool world as scorers: goal-only (outcome) and full contract.

Both read the evidence that replaying the trajectory gives, never the agent's own claims. A
score is 1.0 for PASS and 0.0 for FAIL; UNKNOWN and INVALID carry a null score and their
reasons, so no aggregate reads an unresolved contract as a failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentmetrology.records.assessment import Assessment
from agentmetrology.records.contract import ContractHooks, evaluate
from agentmetrology.records.environment import ScorerKind
from agentmetrology.records.events import Event

SCORES = {"PASS": 1.0, "FAIL": 0.0}


class ContractScorer:
    """Scores an execution against its task's contract: the goal alone, or the whole contract."""

    def __init__(self, hooks: ContractHooks, *, goal_only: bool) -> None:
        self.hooks = hooks
        self.goal_only = goal_only
        # contract 1.1.0: the worlds' contracts 1.2.0 (writes undone later, refunds of another
        # order, invisible text, a boolean for a number); the goal checks are unchanged
        self.version = "1.0.0" if goal_only else "1.1.0"
        self.name = self.label = "goal" if goal_only else "contract"
        self.kind: ScorerKind = "outcome" if goal_only else "specification"

    def score(self, submission: Any, task: str, seed: int | None, profile: str,
              evidence_digest: str | None = None,
              trajectory: Sequence[Event] | None = None) -> Assessment:
        """Return the goal-only or full-contract assessment of one execution."""
        ev = evidence_digest or ""
        if trajectory is None:
            return Assessment(self.name, self.version, "UNKNOWN", None, {},
                              ("the contract is checked on the trajectory; none was given",), ev)
        contract = self.hooks.contract(task)
        doc = self.hooks.capture(submission, task, seed, profile, trajectory)
        result = evaluate(contract, doc)
        comps = {c.name: c.status for c in result.checks}
        if self.goal_only:
            g = result.goal
            return Assessment(self.name, self.version, g.status, SCORES.get(g.status), comps,
                              g.reasons, ev)
        return Assessment(self.name, self.version, result.status, SCORES.get(result.status),
                          comps, result.reasons, ev)

    def summary(self, a: Assessment) -> dict[str, Any]:
        """Return status, score (null unless decided), reasons and each check's status."""
        out: dict[str, Any] = {"status": a.status, "score": a.score}
        if not self.goal_only:
            out["checks"] = dict(a.components)
        if a.reasons:
            out["reasons"] = list(a.reasons)
        return out
