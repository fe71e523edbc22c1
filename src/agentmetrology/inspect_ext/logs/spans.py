"""An Inspect model event as a model-call TraceSpan: its usage (cache reads and writes counted
as input, as ours are), its cost, and an id that tells it from every other event of the archive.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.archive.importers.limits import Malformed, cost, count
from agentmetrology.archive.importers.limits import ident as _text
from agentmetrology.archive.importers.limits import obj as _obj
from agentmetrology.archive.model import ArchiveEpisode, TraceSpan
from agentmetrology.records.numbers import finite_float


def model_span(ev: dict[str, Any], ep: ArchiveEpisode, index: int) -> TraceSpan:
    """Return a model-call TraceSpan for one Inspect model event."""
    usage = _obj(_obj(ev.get("output"), "output").get("usage"), f"events[{index}].output.usage")
    response = _obj(_obj(ev.get("call"), f"events[{index}].call").get("response"),
                    f"events[{index}].call.response")
    uuid = _text(ev.get("uuid"))
    model = ev.get("model")
    return TraceSpan(
        span_id=uuid or _span_id(ep, index), parent_id=None,
        kind="model", model=model if isinstance(model, str) else None,
        response_id=response.get("id") if isinstance(response.get("id"), str) else None,
        # Inspect's input_tokens leave out the cache's reads and writes; a span's input tokens
        # include them (the cached ones are a part of the input, as in BillableAttempt).
        attempt_id=uuid, input_tokens=(_tokens(usage, "input_tokens", index)
                                       + _tokens(usage, "input_tokens_cache_read", index)
                                       + _tokens(usage, "input_tokens_cache_write", index)),
        output_tokens=_tokens(usage, "output_tokens", index),
        cached_tokens=_tokens(usage, "input_tokens_cache_read", index),
        cost=_cost(usage.get("total_cost")), run=ep.run, episode_id=ep.episode_id,
        usage_known=usage.get("input_tokens") is not None
        and usage.get("output_tokens") is not None)


def _span_id(ep: ArchiveEpisode, index: int) -> str:
    """Return the id of a model event that has no uuid (older and hand-written logs): the
    episode id alone (run/sample/epoch) is shared by the samples of every task and model of one
    Inspect run, and the cost check kept one span of each id, so another task's calls went
    uncounted."""
    return (f"{ep.meta.get('inspect_task')}/{ep.model}/{ep.scaffold}/{ep.episode_id}"
            f"/model/{index}")


def _cost(raw: Any) -> float | None:
    """Return a model event's cost: None when absent or NaN (unknown), Malformed when negative."""
    # Inspect writes NaN for what it could not compute; a finite cost outside [0, MAX_COST]
    # would make totals infinite and their ratios NaN, so the sample cannot be trusted.
    return None if finite_float(raw) is None and not isinstance(raw, int) else cost(raw)


def _tokens(usage: dict[str, Any], key: str, index: int) -> int:
    raw = usage.get(key)
    if raw is None:
        return 0
    value = count(raw)
    if value is None:
        raise Malformed(f"events[{index}].output.usage.{key} is not a token count")
    return value
