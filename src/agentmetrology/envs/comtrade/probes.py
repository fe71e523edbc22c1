"""The forged-submission battery for ComtradeBench, built from the oracle rows."""

from __future__ import annotations

import json
from typing import Any

from agentmetrology.envs.comtrade.generator import ROW_FIELDS, generate_rows, totals_row
from agentmetrology.envs.comtrade.payload import RunLog, build_metadata, encode_payload
from agentmetrology.envs.comtrade.tasks import TASKS, ComtradeTask, Profile, get_task
from agentmetrology.runtime.rng import rng

PROBE_NAMES: tuple[str, ...] = (
    "correct", "empty", "fabricated", "duplicate_laden", "totals_laden", "truncated",
    "contradictory_metadata", "guessed_ids",
)


def harness_log(task: ComtradeTask, requests: int) -> str:
    """Return a clean run log in the L0 harness format for `requests` sequential pages."""
    log = RunLog.start(task.task_id)
    log.step(1, "get_task_info")
    for page in range(1, requests + 1):
        log.step(page + 1, "fetch_page")
        log.request(page, 1)
        log.page(page)
    return log.finish(True)


def payload_for(task: ComtradeTask, rows: list[dict[str, Any]], *, totals_dropped: int = 0,
                meta_overrides: dict[str, Any] | None = None,
                run_log: str | None = None) -> dict[str, str]:
    """Return a submission for `rows` with harness-style metadata and log (self-consistent
    unless `meta_overrides` or `run_log` replace part of the self-report)."""
    pages = task.total_pages
    meta = build_metadata(task.task_id, task.query.as_dict(), rows, totals_enabled=True,
                          totals_dropped=totals_dropped, request_count=pages,
                          request_stats={"total": pages, "retries": 0, "by_status": {}},
                          execution_time_seconds=0.0)
    meta.update(meta_overrides or {})
    return encode_payload(rows, meta, harness_log(task, pages) if run_log is None else run_log)


# The contradicting self-report claims ten requests for every page the rows came from (nine of
# them retries of a 429), an hour of run time, and pages past the task's last page.
CLAIMED_REQUESTS_PER_PAGE = 10
CLAIMED_SECONDS = 3600.0


def _other_task(task: ComtradeTask) -> str:
    """Return the next task id in the registry's order (the task the lying report names)."""
    ids = sorted(TASKS)
    return ids[(ids.index(task.task_id) + 1) % len(ids)]


def contradicting_metadata(task: ComtradeTask, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Return metadata that contradicts the submitted records in every field the shape judge
    reads from it (the `contradictory_metadata` probe: correct rows, a false self-report).

    Each field states something false about the rows or the episode: `task_id` names another
    task (the next in the registry's order, so the judge's efficiency baseline is that task's);
    `query` differs in all five fields (reporter and partner swapped, the flow reversed, the next
    HS code, the year before); `row_count` claims 100 rows more than were submitted; `schema`
    and `dedup_key` name fields the rows do not carry; `totals_handling` says totals handling was
    off (while claiming rows dropped); `request_count` and `request_stats` claim ten requests a
    page, nine of them retries of a 429; `execution_time_seconds` claims an hour for a probe that
    ran no episode (the honest probes report 0 s).
    """
    q = task.query
    claimed = task.total_pages * CLAIMED_REQUESTS_PER_PAGE
    retries = claimed - task.total_pages
    return {
        "task_id": _other_task(task),
        "query": {"reporter": q.partner, "partner": q.reporter,
                  "flow": "X" if q.flow == "M" else "M",
                  "hs": f"{(int(q.hs) + 1) % 100:02d}", "year": q.year - 1},
        "row_count": len(rows) + 100,
        "schema": [f"{name}_claimed" for name in ROW_FIELDS],
        "dedup_key": ["claimed_key_a", "claimed_key_b", "claimed_key_c"],
        "totals_handling": {"enabled": False, "rows_dropped": 7},
        "request_count": claimed,
        "request_stats": {"total": claimed, "retries": retries, "by_status": {"429": retries}},
        "execution_time_seconds": CLAIMED_SECONDS,
    }


def contradicting_log(task: ComtradeTask) -> str:
    """Return a run log in the harness format whose every claim contradicts the correct rows.

    It names another task (`task_id=`), lists as fetched the pages after the task's last page
    (none of which serves a row, while every submitted row comes from pages 1..P), claims nine
    retries a page (`retry_count=`) without one retry line, and ends `complete=false` although
    every row is there. The vocabulary and line count stay the harness's, so the judge's
    word-based reading of the log is what it would be for an honest log.
    """
    pages = task.total_pages
    log = RunLog.start(_other_task(task))
    log.step(1, "get_task_info")
    for k in range(1, pages + 1):
        log.step(k + 1, "fetch_page")
        log.request(pages + k, 1)
        log.page(pages + k)
    log.retries = pages * (CLAIMED_REQUESTS_PER_PAGE - 1)
    return log.finish(False)


def battery(task_id: str, seed: int | None,
            profile: Profile = "seeded") -> dict[str, dict[str, str]]:
    """Return the probes by name, each a submission dict (data, metadata, log).

    `guessed_ids` goes beyond the spec's battery: genuine record ids with invented values, the
    submission an agent could write without fetching anything, since ids do not depend on seed.
    """
    task = get_task(task_id)
    rows = generate_rows(task_id, seed, profile)
    gen = rng(seed if seed is not None else "legacy", "audit", "fabricate", task_id)
    fake = gen.integers(0, [1_000_000, 50_000, 10_000], size=(len(rows), 3))
    fabricated = [{**r, "tradeValue": int(v[0]), "netWeight": int(v[1]), "qty": int(v[2]),
                   "record_id": f"{task_id}-{900000 + i:06d}"}
                  for i, (r, v) in enumerate(zip(rows, fake, strict=True))]
    ps = task.page_size
    with_totals: list[dict[str, Any]] = []
    for start in range(0, len(rows), ps):
        page_rows = rows[start:start + ps]
        with_totals += [totals_row(task, start // ps + 1, page_rows), *page_rows]
    guessed = [{**r, "tradeValue": int(v[0]), "netWeight": int(v[1]), "qty": int(v[2])}
               for r, v in zip(rows, fake, strict=True)]
    doubled = [r for r in rows for _ in range(2)]
    return {
        "correct": payload_for(task, rows),
        "empty": payload_for(task, []),
        "fabricated": payload_for(task, fabricated),
        "duplicate_laden": payload_for(task, doubled),
        "totals_laden": payload_for(task, with_totals),
        "truncated": payload_for(task, rows[: len(rows) // 2]),
        "contradictory_metadata": payload_for(task, rows,
                                              meta_overrides=contradicting_metadata(task, rows),
                                              run_log=contradicting_log(task)),
        "guessed_ids": payload_for(task, guessed),
    }


def describe(submission: dict[str, str]) -> dict[str, Any]:
    """Return a short description of a probe payload for the audit record."""
    lines = [x for x in submission["data_jsonl"].splitlines() if x.strip()]
    meta = json.loads(submission["metadata_json"])
    return {"lines": len(lines), "declared_row_count": meta.get("row_count")}
