"""The rule baseline: no model and no harness; a fixed script that pages, retries once, cleans."""

from __future__ import annotations

from typing import Any

from agentmetrology.envs.comtrade.payload import (
    RowCollector,
    RunLog,
    build_metadata,
    encode_payload,
)
from agentmetrology.envs.comtrade.policies.base import ComtradeScripted, is_fault
from agentmetrology.envs.comtrade.question import FaultNotice
from agentmetrology.records.policy import Brief, Decision, ToolCall
from agentmetrology.runtime.scripted import TimedScript, Wait

RULE_RETRY_WAIT_S = 3.0


class RuleBaseline(ComtradeScripted):
    """Pages 1.. until has_more is false, retries a failed page once, drops totals, dedups."""

    name = "rule"
    reads_descriptions = False  # the fixed baseline calls tools by their usual names

    def script(self, brief: Brief) -> TimedScript:
        """The rule's moves: fetch, retry once on a fault, stop on an error without rows."""
        # What each fetch gave, and whether the rule retried after it: its run log is written
        # from these only when it writes its own submission (at L0 the harness owns the
        # submission and usually ends the episode first), in the same order as it happened.
        fetched: list[tuple[int, Any, bool]] = []
        page, retried, steps, complete = 1, False, 0, False
        while steps < brief.max_steps - 1:
            steps += 1
            obs = yield ToolCall("fetch_page", {"page": page})
            if isinstance(obs, dict) and "rows" in obs:
                fetched.append((page, obs, False))
                if obs.get("has_more") is not True:
                    complete = True
                    break
                page, retried = page + 1, False
            elif is_fault(obs) and not retried:
                fetched.append((page, obs, True))
                yield Wait(RULE_RETRY_WAIT_S)
                retried = True
            else:
                fetched.append((page, obs, False))
                break  # an error and no rows: stop
        yield ToolCall("submit_results", _submission(brief, fetched, complete))

    def l1_decision(self, notice: FaultNotice) -> Decision:
        """Retry a page once, then give it up."""
        return "RETRY" if notice.attempt == 1 else "SKIP"


def _submission(brief: Brief, fetched: list[tuple[int, Any, bool]],
                complete: bool) -> dict[str, str]:
    """Return the rule's own payload: its pages cleaned in order, its log of every fetch."""
    log = RunLog.start(brief.task_id)
    collector = RowCollector()
    for page, obs, retried in fetched:
        log.request(page, None, obs)
        if retried:
            log.retry(obs.get("status"), 1, RULE_RETRY_WAIT_S)
        elif isinstance(obs, dict) and "rows" in obs:
            log.page(page)
            collector.add(obs["rows"])
    meta = build_metadata(brief.task_id, brief.query, collector.rows, totals_enabled=True,
                          totals_dropped=collector.totals_dropped, request_count=log.requests,
                          request_stats={"total": log.requests, "retries": log.retries,
                                         "by_status": dict(sorted(log.statuses.items()))})
    return encode_payload(collector.rows, meta, log.finish(complete))
