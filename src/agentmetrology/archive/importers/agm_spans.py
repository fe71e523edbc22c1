"""The model-call spans of a stored episode: its blob's `usage.attempts`, one span per request.

An honest writer lists each request with integer token counts (or null: not reported) and a
finite cost (or null: unknown). A blob that says otherwise (a tagged NaN or infinite cost, a
count written as text or an object, attempts that are not a list of objects) has been
written by something else; the store check names it (the store does not qualify), and here
the value is unknown, never a number: a cost not a finite number in [0, MAX_COST] is no cost,
a count not a non-negative integer leaves the request's usage unknown, and each such value is
a load problem naming the episode and the request.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.archive.importers.limits import Malformed, count, kind_name
from agentmetrology.archive.importers.limits import cost as span_cost
from agentmetrology.archive.model import ArchiveEpisode, TraceSpan
from agentmetrology.edges.display import short_repr

_COUNTS = ("input_tokens", "output_tokens", "cached_tokens")


def episode_spans(ep: ArchiveEpisode, usage: Any) -> tuple[list[TraceSpan], list[str]]:
    """Return the spans of an episode's requests (`usage`: its blob's `usage`), and what in
    them cannot be read as a request's usage (each message names the request)."""
    problems: list[str] = []
    if usage is None:
        return [], problems
    attempts = usage.get("attempts") if isinstance(usage, dict) else None
    if not isinstance(usage, dict) or not isinstance(attempts, list | None):
        what = "usage" if not isinstance(usage, dict) else "usage.attempts"
        shown = usage if not isinstance(usage, dict) else attempts
        return [], [f"{what} is {kind_name(shown)}: no request read from it"]
    out = []
    for i, a in enumerate(attempts or []):
        if not isinstance(a, dict):
            problems.append(f"request {i} is {kind_name(a)}, not an object: not read")
            continue
        attempt = str(a.get("attempt_id") or i)
        try:
            cost = span_cost(a.get("cost"))
        except Malformed as exc:
            cost = None
            problems.append(f"request {attempt}: {exc}, not {short_repr(a.get('cost'), 60)}: its "
                            "cost is unknown")
        counts = {}
        for name in _COUNTS:
            raw = a.get(name)
            counts[name] = 0 if raw is None else count(raw)
            if counts[name] is None:
                problems.append(f"request {attempt}: {name} must be a non-negative integer "
                                f"or null, not {short_repr(raw, 60)}: its usage is unknown")
        known = (a.get("input_tokens") is not None and a.get("output_tokens") is not None
                 and None not in counts.values())
        out.append(TraceSpan(
            span_id=f"{ep.episode_id}#{attempt}", parent_id=None, kind="model",
            model=a.get("model"), response_id=a.get("request_id"), attempt_id=attempt,
            input_tokens=counts["input_tokens"] or 0, output_tokens=counts["output_tokens"] or 0,
            cached_tokens=counts["cached_tokens"] or 0, cost=cost, run=ep.run,
            episode_id=ep.episode_id, usage_known=known))
    return out, problems
