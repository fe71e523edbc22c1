"""Cost over trace trees: alignment, multiplicity, retries kept apart, Pareto shifts."""

from __future__ import annotations

import pytest

from agentmetrology.archive.cost import align_spans, cost_section, pareto_frontier
from agentmetrology.archive.model import Archive, TraceSpan
from agentmetrology.archive.synthetic import synthetic_archive


def _m(sid: str, parent: str | None, usage: tuple[int, int], cost: float,
       response: str | None = None, attempt: str | None = None, run: str | None = None
       ) -> TraceSpan:
    return TraceSpan(sid, parent, "model", "m", response, attempt, usage[0], usage[1], 0, cost,
                     run=run)


def _section(spans: list[TraceSpan]) -> dict:
    return cost_section(Archive("x", "jsonl", spans=spans))


def test_outer_span_with_same_response_is_a_copy() -> None:
    spans = [TraceSpan("root", None, "agent"), _m("outer", "root", (100, 10), 1.0, "r1"),
             _m("inner", "outer", (100, 10), 1.0, "r1", "a1")]
    c = _section(spans)
    assert c["all_spans"]["cost"] == 2.0 and c["corrected"]["cost"] == 1.0
    assert c["root_spans"]["cost"] == 1.0
    assert c["multiplicity"] == 2.0 and c["ratio_all_to_corrected"] == 2.0
    assert c["alignment"]["by_response_id"] == 1 and c["extra_copies"] == 1


def test_identical_retries_are_two_billable_events() -> None:
    # same usage, same (absent) response id, different attempt ids: never deduplicated
    spans = [TraceSpan("step", None, "step"),
             _m("try1", "step", (50, 5), 0.5, attempt="a1"),
             _m("try2", "step", (50, 5), 0.5, attempt="a2")]
    c = _section(spans)
    assert c["billable_events"] == 2 and c["multiplicity"] == 1.0
    assert c["corrected"]["cost"] == 1.0


def test_aggregate_outer_span_over_two_retries() -> None:
    spans = [_m("outer", None, (100, 10), 1.0), _m("t1", "outer", (50, 5), 0.5, attempt="a1"),
             _m("t2", "outer", (50, 5), 0.5, attempt="a2")]
    al = align_spans(spans)
    assert al.method["outer"] == "usage_sum"
    assert al.copies == {"t1": 2, "t2": 2}
    assert _section(spans)["multiplicity"] == 2.0


def test_unresolved_outer_span_is_kept_and_reported() -> None:
    spans = [_m("plan", None, (700, 70), 2.0, "p1"), _m("call", "plan", (100, 10), 1.0, "c1")]
    c = _section(spans)
    assert c["alignment"]["unresolved"] == 1 and c["alignment"]["unresolved_share"] == 1.0
    assert c["billable_events"] == 2 and c["multiplicity"] == 1.0
    assert c["alignment"]["unresolved_span_ids"] == ["plan"]


def test_orphans_duplicates_and_tokens_weight() -> None:
    spans = [_m("a", "missing", (10, 1), 0.1), _m("a", None, (10, 1), 0.1),
             TraceSpan("b", None, "model", input_tokens=5, output_tokens=5)]
    c = _section(spans)
    assert c["alignment"]["orphans"] == 1 and c["alignment"]["duplicate_span_ids"] == 1
    assert c["weight"] == "tokens"  # one span has no cost: fall back to token weights


def test_not_applicable_without_model_spans() -> None:
    assert _section([])["applicable"] is False
    assert _section([TraceSpan("x", None, "tool")])["applicable"] is False


def test_multiplicity_formula_equals_ratio() -> None:
    archive, truth = synthetic_archive(3)
    c = cost_section(archive)
    assert c["multiplicity"] == pytest.approx(c["ratio_all_to_corrected"], rel=1e-12)
    assert c["multiplicity"] == pytest.approx(truth.c_all / truth.c_star, rel=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 11])
def test_synthetic_duplicates_recovered_exactly(seed: int) -> None:
    archive, truth = synthetic_archive(seed)
    c = cost_section(archive)
    assert c["extra_copies"] == truth.extra_copies
    assert c["duplicated_events"] == truth.duplicated_events
    assert c["billable_events"] == truth.billable_events
    assert c["alignment"]["unresolved"] == truth.unresolved_spans
    assert c["all_spans"]["cost"] == pytest.approx(truth.c_all)
    assert c["corrected"]["cost"] == pytest.approx(truth.c_star)
    assert truth.retry_pairs > 0 and truth.extra_copies > 0


def test_pareto_rows_enter_and_leave() -> None:
    spans = [_m("r1", None, (1, 1), 10.0, "x1", run="r1"),
             _m("w2", None, (1, 1), 10.0, "x2", run="r2"),
             _m("v2", "w2", (1, 1), 10.0, "x2", run="r2"),
             _m("u2", "v2", (1, 1), 10.0, "x2", run="r2"),
             _m("r3", None, (1, 1), 25.0, "x3", run="r3")]
    c = cost_section(Archive("x", "jsonl", spans=spans), {"r1": 0.5, "r2": 0.6, "r3": 0.7})
    p = c["pareto"]
    assert p["applicable"] and p["entering"] == ["r2"] and p["leaving"] == ["r1"]
    runs = {r["run"]: r for r in c["runs"]}
    assert runs["r2"]["ratio_all_to_corrected"] == 3.0


def test_pareto_frontier_basic() -> None:
    rows = [("a", 1.0, 0.5), ("b", 2.0, 0.4), ("c", 3.0, 0.9), ("d", 1.0, 0.5)]
    assert pareto_frontier(rows) == {"a", "c", "d"}


def test_a_long_parent_chain_is_linear() -> None:
    # 50,000 spans in one chain, model calls and tool spans alternating, the run named only at
    # the root: every walk up the chain (model parent, depth, cycle, run) was quadratic, and a
    # chain this long would not finish within the test run.
    n = 50_000
    spans = [TraceSpan(f"s{i}", f"s{i - 1}" if i else None, "model" if i % 2 == 0 else "tool",
                       input_tokens=i + 1, output_tokens=1, cost=0.01, run="r" if i == 0 else None)
             for i in range(n)]
    spans.append(TraceSpan("loop-a", "loop-b", "model", input_tokens=1))  # a model cycle
    spans.append(TraceSpan("loop-b", "loop-a", "model", input_tokens=2))
    c = _section(spans)
    assert c["model_spans"] == n // 2 + 2 and c["alignment"]["orphans"] == 0
    assert [r["run"] for r in c["runs"]] == ["(unattributed)", "r"]
    assert c["runs"][1]["billable_events"] == n // 2  # distinct usage: no copies
    al = align_spans(spans)
    assert {"s0", "loop-a", "loop-b"} <= al.roots and len(al.roots) == 3
