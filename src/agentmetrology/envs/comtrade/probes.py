"""The forged-submission battery for ComtradeBench, built from the oracle rows."""

from __future__ import annotations

import json
from typing import Any

from agentmetrology.envs.comtrade.generator import ROW_FIELDS, generate_rows, totals_row
from agentmetrology.envs.comtrade.payload import RunLog, build_metadata, encode_payload
from agentmetrology.envs.comtrade.tasks import TASKS, ComtradeTask, Profile, get_task
from agentmetrology.records.rng import rng

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
                meta_overrides: dict[str, Any] | None = None) -> dict[str, str]:
    """Return a self-consistent submission for `rows` with harness-style metadata and log."""
    pages = task.total_pages
    meta = build_metadata(task.task_id, task.query.as_dict(), rows, totals_enabled=True,
                          totals_dropped=totals_dropped, request_count=pages,
                          request_stats={"total": pages, "retries": 0, "by_status": {}},
                          execution_time_seconds=0.0)
    meta.update(meta_overrides or {})
    return encode_payload(rows, meta, harness_log(task, pages))


def contradicting_metadata(task: ComtradeTask, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Return metadata that contradicts the submitted records in every field the shape judge
    reads from it (the `contradictory_metadata` probe: correct rows, a false self-report).

    Each field states something false about the rows or the episode: `task_id` names another
    task (the next in the registry's order, so the judge's efficiency baseline is that task's);
    `query` differs in all five fields (reporter and partner swapped, the flow reversed, the next
    HS code, the year before); `row_count` claims 100 rows more than were submitted; `schema`
    and `dedup_key` name fields the rows do not carry; `totals_handling` says totals handling was
    off (while claiming rows dropped); `request_count` claims ten times the pages the log shows
    fetched. What the judge reads that the rows cannot contradict is left as the harness writes
    it: the run log, the execution time (0 s) and the request statistics.
    """
    q = task.query
    ids = sorted(TASKS)
    return {
        "task_id": ids[(ids.index(task.task_id) + 1) % len(ids)],
        "query": {"reporter": q.partner, "partner": q.reporter,
                  "flow": "X" if q.flow == "M" else "M",
                  "hs": f"{(int(q.hs) + 1) % 100:02d}", "year": q.year - 1},
        "row_count": len(rows) + 100,
        "schema": [f"{name}_claimed" for name in ROW_FIELDS],
        "dedup_key": ["claimed_key_a", "claimed_key_b", "claimed_key_c"],
        "totals_handling": {"enabled": False, "rows_dropped": 7},
        "request_count": task.total_pages * 10,
    }


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
    contradictory = contradicting_metadata(task, rows)
    return {
        "correct": payload_for(task, rows),
        "empty": payload_for(task, []),
        "fabricated": payload_for(task, fabricated),
        "duplicate_laden": payload_for(task, doubled),
        "totals_laden": payload_for(task, with_totals),
        "truncated": payload_for(task, rows[: len(rows) // 2]),
        "contradictory_metadata": payload_for(task, rows, meta_overrides=contradictory),
        "guessed_ids": payload_for(task, guessed),
    }


def describe(submission: dict[str, str]) -> dict[str, Any]:
    """Return a short description of a probe payload for the audit record."""
    lines = [x for x in submission["data_jsonl"].splitlines() if x.strip()]
    meta = json.loads(submission["metadata_json"])
    return {"lines": len(lines), "declared_row_count": meta.get("row_count")}
