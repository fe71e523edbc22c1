"""Cost over trace trees: all-span vs root-span totals, span alignment, cost-weighted multiplicity.

An outer model-call span that carries the same provider response as a nested one duplicates its
cost. We align each model-call span with its nearest nested model-call spans by response id, by
identical usage, or by usage equal to the children's sum; what aligns is a copy, what does not is
`unresolved` and is kept as its own billable event (reported, never silently dropped). Spans are
never merged by arguments: two charged retries are two billable events with two attempt ids.
With k_b copies of billable event b of cost c_b: C_all / C* = 1 + Σ_b (c_b / C*)(k_b − 1).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from agentmetrology.archive.model import Archive, TraceSpan

MODEL_KINDS = frozenset({"model", "llm", "generation", "chat", "completion", "model_call"})
UNATTRIBUTED = "(unattributed)"
T = TypeVar("T")


def is_model_span(span: TraceSpan) -> bool:
    """Return True for a model-call span (kind model, llm, generation, chat, completion)."""
    return span.kind.lower() in MODEL_KINDS


@dataclass(slots=True)
class Alignment:
    """Which spans are billable events, which are copies (and of what), and how each was aligned."""

    # span id -> leaf / response_id / usage / usage_sum / unresolved
    method: dict[str, str] = field(default_factory=dict)
    represents: dict[str, frozenset[str]] = field(default_factory=dict)  # span -> billable ids
    copies: Counter[str] = field(default_factory=Counter)  # billable id -> number of copies k_b
    roots: set[str] = field(default_factory=set)  # model spans with no model-call ancestor
    orphans: int = 0  # spans whose parent id is not in the trace
    duplicate_ids: int = 0


def _index(spans: Iterable[TraceSpan], al: Alignment) -> dict[str, TraceSpan]:
    by_id: dict[str, TraceSpan] = {}
    for s in spans:
        if s.span_id in by_id:
            al.duplicate_ids += 1  # same span exported twice under one id: keep the first
            continue
        by_id[s.span_id] = s
    return by_id


def _follow(start: str, memo: dict[str, T], look: Callable[[str], tuple[bool, Any]],
            on_cycle: T) -> T:
    """Return the answer for `start` along its parent chain, memoising it for every span walked.

    `look(id)` returns (True, answer) or (False, next id up). A chain that comes back to a span
    already walked is a cycle: every span on the walk gets `on_cycle`. Each span is looked at
    once over all calls, so a chain of n spans costs O(n), not O(n²).
    """
    path: list[str] = []
    walked: set[str] = set()
    cur = start
    while True:
        if cur in memo:
            value = memo[cur]
            break
        if cur in walked:
            value = on_cycle
            break
        path.append(cur)
        walked.add(cur)
        done, found = look(cur)
        if done:
            value = found
            break
        cur = found
    for sid in path:
        memo[sid] = value
    return value


def _model_parents(models: list[TraceSpan], by_id: dict[str, TraceSpan],
                   al: Alignment) -> dict[str, str | None]:
    """Return each model span's nearest model-call ancestor (None at a root); count orphans."""
    memo: dict[str, tuple[str | None, bool]] = {}

    def look(sid: str) -> tuple[bool, Any]:
        pid = by_id[sid].parent_id
        if pid is None:
            return True, (None, False)
        parent = by_id.get(pid)
        if parent is None:
            return True, (None, True)  # an orphan: its parent is not in the trace
        if is_model_span(parent):
            return True, (parent.span_id, False)
        return False, parent.span_id

    out: dict[str, str | None] = {}
    for s in models:
        up, orphan = _follow(s.span_id, memo, look, (None, False))
        al.orphans += orphan
        out[s.span_id] = None if up == s.span_id else up  # a loop back to itself: a root
    return out


def _match(span: TraceSpan, kids: list[TraceSpan]) -> tuple[str, list[TraceSpan]]:
    """Return (method, children this span duplicates) or ('unresolved', [])."""
    if span.response_id is not None:
        same = [k for k in kids if k.response_id == span.response_id]
        if len(same) == 1:
            return "response_id", same
    # a span without token counts (0s standing for unknown) matches nothing by usage
    nonzero = span.usage_known and any(span.usage)
    comparable = [k for k in kids if k.usage_known
                  and (span.response_id is None or k.response_id is None)]
    same_usage = [k for k in comparable if k.usage == span.usage]
    if nonzero and len(same_usage) == 1:
        return "usage", same_usage
    if nonzero and len(kids) >= 2 and all(k.usage_known for k in kids):
        total = tuple(sum(k.usage[i] for k in kids) for i in range(3))
        if total == span.usage:
            return "usage_sum", kids
    return "unresolved", []


def align_spans(spans: Sequence[TraceSpan]) -> Alignment:
    """Return the alignment of nested model-call spans (bottom-up over the model-call tree)."""
    al = Alignment()
    by_id = _index(spans, al)
    models = [s for s in by_id.values() if is_model_span(s)]
    parent = _model_parents(models, by_id, al)
    # model spans whose parent ids loop among themselves are roots (a hostile or broken trace
    # must not send the bottom-up pass to a copy not yet aligned)
    for sid in _on_cycles(parent):
        parent[sid] = None
    kids: dict[str, list[TraceSpan]] = defaultdict(list)
    for s in models:
        up = parent[s.span_id]
        if up is None:
            al.roots.add(s.span_id)
        else:
            kids[up].append(s)
    depth = _depths(parent)
    for s in sorted(models, key=lambda m: -depth[m.span_id]):
        children = kids.get(s.span_id, [])
        method, dup = _match(s, children) if children else ("leaf", [])
        al.method[s.span_id] = method
        if dup:
            rep = frozenset().union(*(al.represents[d.span_id] for d in dup))
            al.represents[s.span_id] = rep
            for b in rep:
                al.copies[b] += 1
        else:
            al.represents[s.span_id] = frozenset({s.span_id})
            al.copies[s.span_id] += 1
    return al


def _on_cycles(parent: dict[str, str | None]) -> list[str]:
    """Return the spans that following model parents leads back to (each walked once)."""
    state: dict[str, int] = {}  # 1: on the walk in progress, 2: settled
    out: list[str] = []
    for start in parent:
        path: list[str] = []
        cur: str | None = start
        while cur is not None and cur in parent and cur not in state:
            state[cur] = 1
            path.append(cur)
            cur = parent[cur]
        if cur is not None and state.get(cur) == 1:  # came back into this walk: a cycle
            out += path[path.index(cur):]
        for sid in path:
            state[sid] = 2
    return out


def _depths(parent: dict[str, str | None]) -> dict[str, int]:
    """Return each span's number of model ancestors (parents form a forest by now)."""
    depth: dict[str, int] = {}
    for start in parent:
        path: list[str] = []
        cur: str | None = start
        while cur is not None and cur not in depth:
            path.append(cur)
            cur = parent.get(cur)
        base = -1 if cur is None else depth[cur]
        for i, sid in enumerate(reversed(path), start=1):
            depth[sid] = base + i
    return depth


def _totals(spans: Iterable[TraceSpan]) -> dict[str, Any]:
    items = list(spans)
    costs = [s.cost for s in items]
    return {"spans": len(items), "input": sum(s.input_tokens for s in items),
            "output": sum(s.output_tokens for s in items),
            "cached": sum(s.cached_tokens for s in items),
            # spans without token counts: the token sums above are lower bounds then
            "usage_unknown": sum(1 for s in items if not s.usage_known),
            "cost": None if any(c is None for c in costs) or not items
            else sum(c for c in costs if c is not None)}


def _weight(span: TraceSpan, by: str) -> float:
    if by == "cost":
        return float(span.cost or 0.0)
    return float(span.input_tokens + span.output_tokens)


def multiplicity(billable: dict[str, TraceSpan], copies: Counter[str], by: str) -> float | None:
    """Return 1 + Σ_b (c_b / C*)(k_b − 1) with weights by 'cost' or 'tokens' (None if C* = 0)."""
    c_star = sum(_weight(s, by) for s in billable.values())
    if c_star <= 0:
        return None
    return 1.0 + sum(_weight(s, by) / c_star * (copies[b] - 1) for b, s in billable.items())


def _section(models: list[TraceSpan], al: Alignment) -> dict[str, Any]:
    """Return totals, ratios and multiplicity for a set of model-call spans."""
    billable = {s.span_id: s for s in models if al.represents.get(s.span_id) == {s.span_id}}
    by = "cost" if models and all(s.cost is not None for s in models) else "tokens"
    w_all = sum(_weight(s, by) for s in models)
    w_root = sum(_weight(s, by) for s in models if s.span_id in al.roots)
    w_star = sum(_weight(s, by) for s in billable.values())
    attempts = Counter(s.attempt_id for s in billable.values() if s.attempt_id)
    return {
        "weight": by, "all_spans": _totals(models),
        "root_spans": _totals(s for s in models if s.span_id in al.roots),
        "corrected": _totals(billable.values()),
        "ratio_all_to_root": w_all / w_root if w_root else None,
        "ratio_all_to_corrected": w_all / w_star if w_star else None,
        "multiplicity": multiplicity(billable, Counter({b: al.copies[b] for b in billable}), by),
        "billable_events": len(billable),
        "duplicated_events": sum(1 for b in billable if al.copies[b] > 1),
        "extra_copies": sum(al.copies[b] - 1 for b in billable),
        # billable events weighted by tokens they have no counts for: the ratios and the
        # multiplicity are over the events whose weight is known then
        "weight_unknown": sum(1 for s in billable.values()
                              if by == "tokens" and not s.usage_known),
        # kept apart, never merged: equal attempt ids on two billable spans need a human look
        "shared_attempt_ids": sum(1 for n in attempts.values() if n > 1),
    }


def _runs_of(spans: list[TraceSpan], by_id: dict[str, TraceSpan],
             ep_runs: dict[str, str]) -> list[str]:
    """Return each span's run: its own, its episode's, or the nearest ancestor's."""
    memo: dict[str, str] = {}

    def look(sid: str) -> tuple[bool, Any]:
        span = by_id[sid]
        if span.run:
            return True, span.run
        if span.episode_id and span.episode_id in ep_runs:
            return True, ep_runs[span.episode_id]
        parent = by_id.get(span.parent_id) if span.parent_id else None
        return (True, UNATTRIBUTED) if parent is None else (False, parent.span_id)

    return [_follow(s.span_id, memo, look, UNATTRIBUTED) for s in spans]


def pareto_frontier(rows: Sequence[tuple[str, float, float]]) -> set[str]:
    """Return names of (name, cost, accuracy) rows not dominated (lower cost, higher accuracy)."""
    front = set()
    for name, cost, acc in rows:
        dominated = any(c <= cost and a >= acc and (c < cost or a > acc)
                        for n, c, a in rows if n != name)
        if not dominated:
            front.add(name)
    return front


def _alignment_summary(models: list[TraceSpan], al: Alignment, by: str) -> dict[str, Any]:
    """Return how nested spans were aligned and the share left unresolved."""
    methods = Counter(al.method[s.span_id] for s in models)
    parents = sum(n for m, n in methods.items() if m != "leaf")
    unresolved = [s for s in models if al.method[s.span_id] == "unresolved"]
    w_all = sum(_weight(s, by) for s in models)
    return {
        "leaves": methods["leaf"], "parents": parents,
        "by_response_id": methods["response_id"], "by_usage": methods["usage"],
        "by_usage_sum": methods["usage_sum"], "unresolved": len(unresolved),
        "unresolved_share": len(unresolved) / parents if parents else None,
        "unresolved_weight_share": (sum(_weight(s, by) for s in unresolved) / w_all
                                    if w_all else None),
        "unresolved_span_ids": sorted(s.span_id for s in unresolved)[:100],
        "orphans": al.orphans, "duplicate_span_ids": al.duplicate_ids,
    }


def _pareto(runs: list[dict[str, Any]], accuracy: dict[str, float]) -> dict[str, Any]:
    """Return the cost–accuracy frontier on stored (all-span) and corrected costs."""
    rows = [r for r in runs if r["run"] in accuracy and r["ratio_all_to_corrected"] is not None]
    key = "cost" if all(r["weight"] == "cost" for r in rows) else "tokens"
    # a run whose token total is a lower bound (spans without counts) has no place on a
    # frontier of token totals: it could sit anywhere above its bound
    unknown = sorted(r["run"] for r in rows if key == "tokens"
                     and (r["all_spans"]["usage_unknown"] or r["corrected"]["usage_unknown"]))
    rows = [r for r in rows if r["run"] not in unknown]
    if len(rows) < 2:
        return {"applicable": False, "reason": "fewer than two runs with both cost and accuracy"
                + (f" (left out, some of their spans have no token counts: "
                   f"{', '.join(unknown)})" if unknown else ""),
                "excluded_usage_unknown": unknown}

    def weight(t: dict[str, Any]) -> float:
        return float(t["cost"]) if key == "cost" else float(t["input"] + t["output"])

    stored = [(r["run"], weight(r["all_spans"]), accuracy[r["run"]]) for r in rows]
    corrected = [(r["run"], weight(r["corrected"]), accuracy[r["run"]]) for r in rows]
    f0, f1 = pareto_frontier(stored), pareto_frontier(corrected)
    return {
        "applicable": True, "weight": key,
        "rows": [{"run": s[0], "accuracy": s[2], "cost_stored": s[1], "cost_corrected": c[1],
                  "frontier_stored": s[0] in f0, "frontier_corrected": s[0] in f1}
                 for s, c in zip(stored, corrected, strict=True)],
        "entering": sorted(f1 - f0), "leaving": sorted(f0 - f1),
        "excluded_usage_unknown": unknown,
    }


def cost_section(archive: Archive, accuracy_by_run: dict[str, float] | None = None
                 ) -> dict[str, Any]:
    """Return the cost section of archive.json (totals, alignment, per-run ratios, Pareto)."""
    if not archive.spans:
        return {"applicable": False,
                "reason": "no trace spans (give --spans FILE, or a log with model-call events)"}
    al = align_spans(archive.spans)
    by_id = _index(archive.spans, Alignment())
    models = [s for s in by_id.values() if is_model_span(s)]
    if not models:
        return {"applicable": False,
                "reason": f"none of the {len(by_id)} spans is a model-call span"}
    out: dict[str, Any] = {"applicable": True, "spans": len(archive.spans),
                           "model_spans": len(models), **_section(models, al)}
    out["alignment"] = _alignment_summary(models, al, out["weight"])
    ep_runs = {e.episode_id: e.run for e in archive.episodes if e.run}
    groups: dict[str, list[TraceSpan]] = defaultdict(list)
    for s, run in zip(models, _runs_of(models, by_id, ep_runs), strict=True):
        groups[run].append(s)
    out["runs"] = [{"run": run, **_section(ms, al)} for run, ms in sorted(groups.items())]
    out["pareto"] = _pareto(out["runs"], accuracy_by_run or {})
    return out
