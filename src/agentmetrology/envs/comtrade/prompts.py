"""What an LLM agent is told on ComtradeBench: system prompt, per-level instructions, L1 question.

The adversity lives in the environment's responses, not in the prompt: the instructions say what
the model owns at its scaffold level and what a correct submission is, never which faults a task
injects. The task's own description (as `get_task_info` returns it) is passed on unchanged.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentmetrology.envs.comtrade.question import FaultNotice
    from agentmetrology.envs.comtrade.tasks import ComtradeTask

PROMPT_VERSION = "comtrade-llm-1"

SYSTEM_PROMPT = (
    "You are a data-extraction agent. You work only through the tools you are given: every "
    "action is a tool call, and each tool result comes back to you as JSON. Tool results can "
    "be errors; read them and decide what to do. Answer without a tool call only when you are "
    "finished."
)

L0_INSTRUCTIONS = (
    "A harness runs this extraction with you. It retries failed requests, removes duplicate "
    "and summary rows, writes the metadata and the run log, and submits the result itself. "
    "Your part: fetch the pages of the result with fetch_page, one call per page, in the "
    "order you choose. When you have fetched every page, reply with a short message and no "
    "tool call."
)

L1_INSTRUCTIONS = (
    "A harness fetches the pages of a paginated data API for this task and writes the "
    "submission. When a request fails, you decide whether the harness should RETRY the same "
    "page (this spends one more request from a limited budget) or SKIP it (the rows of that "
    "page are then missing from the result). Answer each question with exactly one word: "
    "RETRY or SKIP."
)

L2_INSTRUCTIONS = (
    "You own the whole extraction. Use fetch_page to read every page of the result (pages "
    "are 1-indexed; every call, failed ones included, spends one request of a limited "
    "budget). Handle errors as you see fit. The result must contain every genuine record of "
    "the query exactly once and nothing else. Finish with exactly one submit_results call: "
    "data_jsonl has one JSON object per line (one line per record, with its fields as "
    "returned by the API); metadata_json is a JSON object describing the extraction (for "
    "example task_id, query, row_count, schema, dedup_key, request_count); run_log is a "
    "plain-text log of what you did. You can submit only once."
)

LEVEL_INSTRUCTIONS = {"L0": L0_INSTRUCTIONS, "L1": L1_INSTRUCTIONS, "L2": L2_INSTRUCTIONS}


@lru_cache(maxsize=256)  # built once per (task, level, limit), not once per episode
def task_message(task: ComtradeTask, level: str, max_steps: int) -> str:
    """Return the first user message: the task, its query, the level's instructions."""
    # At L1 the model makes no tool calls, so the step limit is not its concern.
    # With max_steps 0 no limit is enforced (e.g. over MCP), so none is stated.
    steps = "" if level == "L1" or max_steps <= 0 else \
        f"You can make at most {max_steps} tool calls.\n"
    return (
        f"Task {task.task_id}: {task.description}\n"
        f"Query: {json.dumps(task.query.as_dict(), sort_keys=True)}\n"
        f"{steps}\n{LEVEL_INSTRUCTIONS[level]}"
    )


def fault_question_text(notice: FaultNotice) -> str:
    """Return the L1 question about one failed fetch, with the budget arithmetic."""
    total = "unknown" if notice.total_pages is None else str(notice.total_pages)
    status = "none" if notice.status is None else str(notice.status)
    return (
        f"Fetching page {notice.page} failed (attempt {notice.attempt}): status {status}, "
        f"error {notice.error!r}.\n"
        f"Requests used: {notice.requests_used}; remaining: {notice.requests_remaining}. "
        f"Pages fetched so far: {notice.pages_done}; total pages: {total}.\n"
        "Answer RETRY or SKIP."
    )
