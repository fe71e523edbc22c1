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
        log = RunLog.start(brief.task_id)
        pages: list[Any] = []  # cleaned only when the rule writes its own submission
        page, retried, steps, complete = 1, False, 0, False
        while steps < brief.max_steps - 1:
            steps += 1
            obs = yield ToolCall("fetch_page", {"page": page})
            log.request(page, None, obs)
            if isinstance(obs, dict) and "rows" in obs:
                log.page(page)
                pages.append(obs["rows"])
                if obs.get("has_more") is not True:
                    complete = True
                    break
                page, retried = page + 1, False
            elif is_fault(obs) and not retried:
                log.retry(obs.get("status"), 1, RULE_RETRY_WAIT_S)
                yield Wait(RULE_RETRY_WAIT_S)
                retried = True
            else:
                break  # an error and no rows: stop
        # At L0 the harness owns the submission and usually ends the episode before the rule
        # gets here, so its cleaning waits until it is needed (same pages, same order).
        collector = RowCollector()
        for rows in pages:
            collector.add(rows)
        meta = build_metadata(brief.task_id, brief.query, collector.rows, totals_enabled=True,
                              totals_dropped=collector.totals_dropped,
                              request_count=log.requests,
                              request_stats={"total": log.requests, "retries": log.retries,
                                             "by_status": dict(sorted(log.statuses.items()))})
        yield ToolCall("submit_results", encode_payload(collector.rows, meta,
                                                        log.finish(complete)))

    def l1_decision(self, notice: FaultNotice) -> Decision:
        """Retry a page once, then give it up."""
        return "RETRY" if notice.attempt == 1 else "SKIP"
