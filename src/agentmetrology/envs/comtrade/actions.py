"""What a ComtradeBench episode did about each execution-critical decision (as 0/1 actions).

An action is only defined where the decision was live in that episode (e.g. `dedup` only when
the fetched rows contained duplicates); otherwise it is None and the episode does not count
towards that decision's non-degeneracy.
"""

from __future__ import annotations

import json
from typing import Any

from agentmetrology.envs.comtrade.generator import is_totals_row
from agentmetrology.records.episode import Episode


def _fetches(ep: Episode) -> list[tuple[Any, dict[str, Any]]]:
    return [(e.args.get("page"), e.result) for e in ep.events
            if e.kind == "tool_call" and e.name == "fetch_page" and isinstance(e.result, dict)]


def _submitted_rows(ep: Episode) -> list[Any]:
    if ep.submission is None:
        return []
    out = []
    for line in ep.submission["data_jsonl"].split("\n"):
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError:
                out.append(None)
    return out


def episode_actions(ep: Episode) -> dict[str, list[int]]:
    """Return per decision the 0/1 actions the episode took where the decision was live."""
    fetches = _fetches(ep)
    out: dict[str, list[int]] = {d: [] for d in ("retry", "pagination", "dedup", "totals_drop",
                                                 "reemission", "submission")}
    # retry: L1 decisions are explicit events; elsewhere, did the next fetch re-request the page?
    decisions = [e.result for e in ep.events if e.kind == "decision"]
    if decisions:
        out["retry"] = [1 if d == "RETRY" else 0 for d in decisions]
    else:
        for (page, res), nxt in zip(fetches, [*fetches[1:], (None, {})], strict=True):
            if "rows" not in res and ("status" in res or res.get("retry")) and page not in (
                    None, 0):
                out["retry"].append(1 if nxt[0] == page else 0)
    fetched = [r for _, res in fetches for r in res.get("rows", []) if isinstance(r, dict)]
    genuine = {r.get("record_id") for r in fetched if not is_totals_row(r)}
    totals = [r for _, res in fetches if "rows" in res for r in res["rows"]
              if isinstance(r, dict) and is_totals_row(r)]
    pages = max((res.get("total_pages", 0) for _, res in fetches if "rows" in res), default=0)
    if pages:
        got = {p for p, res in fetches if res.get("rows")}
        out["pagination"] = [1 if got >= set(range(1, pages + 1)) else 0]
    sub_rows = _submitted_rows(ep)
    sub_ids = [r.get("record_id") for r in sub_rows if isinstance(r, dict)]
    ep_submitted = ep.submission is not None
    out["submission"] = [1 if ep_submitted else 0]
    if ep_submitted and len(fetched) > len(genuine) + len(totals):
        out["dedup"] = [1 if len(sub_ids) == len(set(sub_ids)) else 0]
    if ep_submitted and totals:
        out["totals_drop"] = [0 if any(is_totals_row(r) for r in sub_rows) else 1]
    if ep_submitted and genuine:
        out["reemission"] = [1 if genuine <= set(sub_ids) else 0]
    return out
