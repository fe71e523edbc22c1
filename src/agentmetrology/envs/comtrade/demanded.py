"""The submission a ComtradeBench task demands: its minimal correct `submit_results` call.

The solvability audit sizes it: at L2 the model re-emits every cleaned row inside one call's
arguments, so the call's length is what a single response's output budget must hold.
"""

from __future__ import annotations

import json

from agentmetrology.envs.comtrade.generator import generate_rows
from agentmetrology.envs.comtrade.payload import RunLog, build_metadata, encode_payload
from agentmetrology.envs.comtrade.tasks import get_task
from agentmetrology.records.environment import DemandedCall


def _as_emitted(value: str) -> str:
    """Return a string as it appears inside a JSON argument text (quotes and escapes)."""
    return json.dumps(value, ensure_ascii=False)[1:-1]


def demanded_call(task_id: str, seed: int | None) -> DemandedCall:
    """Return the correct answer's submit_results arguments and each row as emitted in them."""
    task = get_task(task_id)
    rows = generate_rows(task_id, seed)  # G: the genuine rows, no duplicate, no totals row
    log = RunLog.start(task_id)
    meta = build_metadata(task_id, task.query.as_dict(), rows, totals_enabled=True,
                          totals_dropped=0)
    args = encode_payload(rows, meta, log.finish(True))
    lines = args["data_jsonl"].splitlines(keepends=True)
    text = json.dumps(args, ensure_ascii=False)
    return DemandedCall(text, tuple(_as_emitted(line) for line in lines))
