"""The contradictory-metadata probe: correct rows, a self-report (metadata and run log)
contradicting them in every field the shape judge reads; its drop on the legacy profile is
pinned."""

from __future__ import annotations

import json

import pytest

from agentmetrology.envs.comtrade.generator import generate_rows
from agentmetrology.envs.comtrade.probes import (
    battery,
    contradicting_log,
    contradicting_metadata,
)
from agentmetrology.envs.comtrade.tasks import TASKS, get_task
from agentmetrology.envs.registry import get_env

JUDGED_FIELDS = ("task_id", "query", "row_count", "schema", "dedup_key", "totals_handling",
                 "request_count", "request_stats", "execution_time_seconds")


def _claims(log: str) -> dict[str, list[str]]:
    """Return the log's key=value claims, by key, in order."""
    out: dict[str, list[str]] = {}
    for line in log.splitlines():
        for word in line.split():
            key, _, value = word.partition("=")
            out.setdefault(key, []).append(value)
    return out


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_every_field_the_judge_reads_contradicts_the_rows(task_id: str) -> None:
    task = get_task(task_id)
    rows = generate_rows(task_id, None, "legacy")
    honest = json.loads(battery(task_id, None, "legacy")["correct"]["metadata_json"])
    lying = contradicting_metadata(task, rows)
    for field in JUDGED_FIELDS:
        assert lying[field] != honest[field], field
    assert all(lying["query"][k] != v for k, v in honest["query"].items())
    carried = set(rows[0])
    assert carried.isdisjoint(lying["schema"]) and carried.isdisjoint(lying["dedup_key"])
    assert lying["task_id"] in TASKS and lying["task_id"] != task_id
    assert lying["request_stats"]["retries"] == lying["request_count"] - task.total_pages > 0


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_every_claim_of_the_run_log_contradicts_the_rows(task_id: str) -> None:
    task = get_task(task_id)
    honest = _claims(battery(task_id, None, "legacy")["correct"]["run_log"])
    lying = _claims(contradicting_log(task))
    assert honest["task_id"] == [task_id] and lying["task_id"] != [task_id]
    # every page the log names lies past the task's last page: none served a submitted row
    assert honest["page"] and all(int(p) > task.total_pages for p in lying["page"])
    assert honest["retry_count"] == ["0"] and int(lying["retry_count"][0]) > 0
    assert "retry" not in lying  # the retries it claims have no line of their own
    assert (honest["complete"], lying["complete"]) == (["true"], ["false"])
    # the harness's vocabulary and line count are kept: only the claims differ
    assert set(lying) == set(honest)


def test_the_judge_drops_but_ground_truth_does_not() -> None:
    spec = get_env("comtrade")
    judge, truth = spec.scorer("shape_judge"), spec.scorer("ground_truth_f1")
    drops = []
    for task_id in sorted(TASKS):
        probes = battery(task_id, None, "legacy")
        correct = judge.score(probes["correct"], task_id, None, "legacy").score
        forged = probes["contradictory_metadata"]
        assert truth.score(forged, task_id, None, "legacy").score == 1.0
        lied = judge.score(forged, task_id, None, "legacy").score
        assert correct is not None and lied is not None
        drops.append((correct - lied) / 100)
    assert drops[sorted(TASKS).index("T2_multi_page")] == pytest.approx(0.384, abs=1e-9)
    assert drops[sorted(TASKS).index("T5_server_error_500")] == pytest.approx(0.388, abs=1e-9)
    assert sum(drops) / len(drops) == pytest.approx(0.38481818181818, abs=1e-12)
