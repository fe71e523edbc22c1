"""Cost over trace trees: alignment, multiplicity, retries kept apart, Pareto shifts.

The cost section of archive.json pinned on hand-derived trace trees (docs/archive.md, "cost").

Every expected number below is worked out by hand from the spec, not read back from the code:
C_all sums every model-call span, the root total only spans without a model-call ancestor, C*
the billable events (spans no aligned parent copies), and the multiplicity is
1 + Σ_b (c_b / C*)(k_b − 1). Costs are binary fractions so the sums are exact."""

from __future__ import annotations

import pytest

from agentmetrology.archive.cost import UNATTRIBUTED, align_spans, cost_section, pareto_frontier
from agentmetrology.archive.model import Archive, ArchiveEpisode, TraceSpan
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


def _span(sid: str, parent: str | None, usage: tuple[int, int, int], cost: float | None, *,
       response: str | None = None, attempt: str | None = None, run: str | None = None,
       episode: str | None = None, kind: str = "model", known: bool = True) -> TraceSpan:
    return TraceSpan(sid, parent, kind, "m", response, attempt, usage[0], usage[1], usage[2],
                     cost, run=run, episode_id=episode, usage_known=known)


def _totals(spans: int, inp: int, out: int, cached: int, cost: float | None,
            unknown: int = 0) -> dict:
    return {"spans": spans, "input": inp, "output": out, "cached": cached, "cost": cost,
            "usage_unknown": unknown}


# Run A is named on a non-model ancestor; B through an episode; C on the span itself; Z nowhere.
WORKED = [
    TraceSpan("A.agent", None, "agent", run="A"),
    _span("A.out", "A.agent", (100, 10, 5), 1.0, response="rA"),  # copy of A.in by response id
    _span("A.in", "A.out", (100, 10, 5), 1.0, response="rA"),
    _span("B.wrap", None, (60, 6, 0), 0.5, episode="e1"),  # copy of t1 + t2 by usage sum
    _span("B.t1", "B.wrap", (30, 3, 0), 0.25, attempt="x"),
    _span("B.t2", "B.wrap", (30, 3, 0), 0.25, attempt="x"),  # same attempt id: flagged, not merged
    _span("B.u", None, (20, 2, 1), 0.25, response="rU", run="B"),  # copy of B.v by equal usage
    _span("B.v", "B.u", (20, 2, 1), 0.25, attempt="y", episode="e2"),  # e2 has no run: ancestor
    _span("C.plan", None, (70, 7, 0), 2.0, response="p", run="C"),  # unresolved: kept as billable
    _span("C.call", "C.plan", (10, 1, 0), 0.5, response="c", run="C"),
    _span("Z", None, (5, 5, 0), 0.125, episode="e2"),
]


def _worked(accuracy: dict[str, float] | None = None) -> dict:
    episodes = [ArchiveEpisode("e1", "t", "m", run="B"), ArchiveEpisode("e2", "t", "m")]
    return cost_section(Archive("x", "jsonl", episodes=episodes, spans=WORKED), accuracy)


def test_worked_tree_totals_ratios_and_multiplicity() -> None:
    c = _worked()
    assert c["applicable"] is True and c["spans"] == 11 and c["model_spans"] == 10
    assert c["weight"] == "cost"
    assert c["all_spans"] == _totals(10, 445, 49, 12, 6.125)
    assert c["root_spans"] == _totals(5, 255, 30, 6, 3.875)
    assert c["corrected"] == _totals(7, 265, 31, 6, 4.375)
    assert c["ratio_all_to_root"] == 6.125 / 3.875
    assert c["ratio_all_to_corrected"] == 1.4
    # copies: A.in, B.t1, B.t2, B.v twice each: 1 + (1 + 0.25 + 0.25 + 0.25) / 4.375 = 1.4
    assert c["multiplicity"] == pytest.approx(1.4, rel=1e-15)
    assert (c["billable_events"], c["duplicated_events"], c["extra_copies"]) == (7, 4, 4)
    assert c["shared_attempt_ids"] == 1


def test_worked_tree_alignment_summary() -> None:
    assert _worked()["alignment"] == {
        "leaves": 6, "parents": 4, "by_response_id": 1, "by_usage": 1, "by_usage_sum": 1,
        "unresolved": 1, "unresolved_share": 0.25, "unresolved_weight_share": 2.0 / 6.125,
        "unresolved_span_ids": ["C.plan"], "orphans": 0, "duplicate_span_ids": 0}


def _run(spans: int, all_: tuple, root: tuple, corrected: tuple, ratios: tuple[float, float],
         mult: float, counts: tuple[int, int, int, int]) -> dict:
    return {"weight": "cost", "all_spans": _totals(spans, *all_),
            "root_spans": _totals(*root), "corrected": _totals(*corrected),
            "ratio_all_to_root": ratios[0], "ratio_all_to_corrected": ratios[1],
            "multiplicity": mult, "billable_events": counts[0], "duplicated_events": counts[1],
            "extra_copies": counts[2], "shared_attempt_ids": counts[3], "weight_unknown": 0}


def test_worked_tree_per_run_sections() -> None:
    runs = {r["run"]: r for r in _worked()["runs"]}
    assert [r["run"] for r in _worked()["runs"]] == [UNATTRIBUTED, "A", "B", "C"]
    for r in runs.values():
        r.pop("run")
    b_mult = runs["B"].pop("multiplicity")
    assert b_mult == pytest.approx(2.0, rel=1e-15)  # 1 + 3 × (0.25 / 0.75)
    assert runs[UNATTRIBUTED] == _run(1, (5, 5, 0, 0.125), (1, 5, 5, 0, 0.125),
                                      (1, 5, 5, 0, 0.125), (1.0, 1.0), 1.0, (1, 0, 0, 0))
    assert runs["A"] == _run(2, (200, 20, 10, 2.0), (1, 100, 10, 5, 1.0), (1, 100, 10, 5, 1.0),
                             (2.0, 2.0), 2.0, (1, 1, 1, 0))
    expected_b = _run(5, (160, 16, 2, 1.5), (2, 80, 8, 1, 0.75), (3, 80, 8, 1, 0.75),
                      (2.0, 2.0), 0.0, (3, 3, 3, 1))
    expected_b.pop("multiplicity")
    assert runs["B"] == expected_b
    assert runs["C"] == _run(2, (80, 8, 0, 2.5), (1, 70, 7, 0, 2.0), (2, 80, 8, 0, 2.5),
                             (1.25, 1.0), 1.0, (2, 0, 0, 0))


def test_worked_tree_pareto_rows_on_cost() -> None:
    # C (2.5, 0.45) is dominated by A (2.0 stored / 1.0 corrected, 0.5) both ways
    p = _worked({"A": 0.5, "B": 0.4, "C": 0.45, "ghost": 1.0})["pareto"]
    assert p == {"applicable": True, "weight": "cost", "entering": [], "leaving": [],
                 "excluded_usage_unknown": [], "rows": [
        {"run": "A", "accuracy": 0.5, "cost_stored": 2.0, "cost_corrected": 1.0,
         "frontier_stored": True, "frontier_corrected": True},
        {"run": "B", "accuracy": 0.4, "cost_stored": 1.5, "cost_corrected": 0.75,
         "frontier_stored": True, "frontier_corrected": True},
        {"run": "C", "accuracy": 0.45, "cost_stored": 2.5, "cost_corrected": 2.5,
         "frontier_stored": False, "frontier_corrected": False}]}


def test_pareto_needs_two_runs_with_accuracy() -> None:
    refused = {"applicable": False, "reason": "fewer than two runs with both cost and accuracy",
               "excluded_usage_unknown": []}
    assert _worked()["pareto"] == refused
    assert _worked({"A": 0.5})["pareto"] == refused
    assert _worked({"A": 0.5, "B": 0.4})["pareto"]["applicable"] is True


def test_pareto_on_tokens_when_a_run_has_no_cost() -> None:
    # tokens weight = input + output. Stored: R1 100, R2 60, R4 80; corrected: R1 50, R2 60, R4 40
    spans = [_span("p", None, (40, 10, 0), None, response="q", run="R1"),
             _span("k", "p", (40, 10, 0), None, response="q"),
             _span("s", None, (30, 30, 0), 0.5, run="R2"),
             _span("w", None, (40, 0, 0), None, response="z", run="R4"),
             _span("w2", "w", (40, 0, 0), None, response="z")]
    c = cost_section(Archive("x", "jsonl", spans=spans), {"R1": 0.9, "R2": 0.8, "R4": 0.7})
    assert c["weight"] == "tokens" and c["all_spans"] == _totals(5, 190, 50, 0, None)
    assert c["ratio_all_to_corrected"] == 240 / 150 and c["ratio_all_to_root"] == 240 / 150
    assert c["multiplicity"] == pytest.approx(1.6, rel=1e-15)
    assert {r["run"]: r["weight"] for r in c["runs"]} == {"R1": "tokens", "R2": "cost",
                                                          "R4": "tokens"}
    p = c["pareto"]
    assert p["weight"] == "tokens" and p["entering"] == ["R4"] and p["leaving"] == ["R2"]
    assert [(r["run"], r["cost_stored"], r["cost_corrected"], r["frontier_stored"],
             r["frontier_corrected"]) for r in p["rows"]] == [
        ("R1", 100.0, 50.0, True, True), ("R2", 60.0, 60.0, True, False),
        ("R4", 80.0, 40.0, False, True)]


def test_zero_usage_parent_is_unresolved_and_zero_weight_has_no_ratio() -> None:
    # usage (0, 0, 0) matches nothing (equal zeros prove no copy); all weights zero: no ratios
    spans = [_span("o", None, (0, 0, 0), 0.0), _span("i1", "o", (0, 0, 0), 0.0),
             _span("i2", "o", (0, 0, 0), 0.0)]
    c = cost_section(Archive("x", "jsonl", spans=spans))
    assert c["alignment"]["unresolved_span_ids"] == ["o"]
    assert c["alignment"]["unresolved_weight_share"] is None
    assert c["ratio_all_to_root"] is None and c["ratio_all_to_corrected"] is None
    assert c["multiplicity"] is None and c["billable_events"] == 3


def test_response_id_mismatch_is_never_aligned_by_usage() -> None:
    # parent and child both carry (different) response ids: equal usage is not evidence
    spans = [_span("o", None, (9, 1, 0), 1.0, response="a"), _span("i", "o", (9, 1, 0), 1.0,
                                                             response="b")]
    al = cost_section(Archive("x", "jsonl", spans=spans))["alignment"]
    assert al["unresolved"] == 1 and al["by_usage"] == 0
    # one child with an id and one without: the id-less one may match by usage
    spans = [_span("o", None, (9, 1, 0), 1.0, response="a"),
             _span("i", "o", (9, 1, 0), 1.0, response="b"), _span("j", "o", (9, 1, 0), 1.0)]
    c = cost_section(Archive("x", "jsonl", spans=spans))
    assert c["alignment"]["by_usage"] == 1 and c["billable_events"] == 2


def test_single_child_is_never_a_usage_sum() -> None:
    # one child whose usage differs cannot be "the sum of the children"
    spans = [_span("o", None, (20, 2, 0), 1.0), _span("i", "o", (10, 1, 0), 0.5)]
    assert cost_section(Archive("x", "jsonl", spans=spans))["alignment"]["unresolved"] == 1


def test_orphans_duplicate_ids_and_cycles_are_counted_not_fatal() -> None:
    spans = [_span("o1", "gone1", (1, 1, 0), 0.5), _span("o2", "gone2", (1, 1, 0), 0.5),
             _span("o1", None, (7, 7, 0), 9.0), _span("o2", None, (7, 7, 0), 9.0),
             TraceSpan("c1", "c2", "agent"), TraceSpan("c2", "c1", "agent"),
             _span("m", "c1", (1, 1, 0), 0.5),
             # two model spans whose parent ids loop, with identical usage
             _span("x1", "x2", (3, 1, 0), 0.25), _span("x2", "x1", (3, 1, 0), 0.25),
             _span("x0", "x1", (3, 1, 0), 0.25)]
    c = cost_section(Archive("x", "jsonl", spans=spans))
    assert c["alignment"]["orphans"] == 2 and c["alignment"]["duplicate_span_ids"] == 2
    assert c["spans"] == 10 and c["model_spans"] == 6  # the first of each duplicated id is kept
    assert c["all_spans"]["cost"] == 2.25 and c["root_spans"]["cost"] == 2.0
    # x1, x2 are roots (their loop is cut), x1 copies x0 by usage
    assert c["alignment"]["by_usage"] == 1 and c["billable_events"] == 5


def test_nested_copies_chain_to_one_billable_event() -> None:
    # three levels carrying one response: one billable event with three copies (k = 3)
    spans = [_span("a", None, (4, 4, 0), 0.5, response="r"),
             _span("b", "a", (4, 4, 0), 0.5, response="r"),
             TraceSpan("tool", "b", "tool"),
             _span("c", "tool", (4, 4, 0), 0.5, response="r")]
    c = cost_section(Archive("x", "jsonl", spans=spans))
    assert c["billable_events"] == 1 and c["extra_copies"] == 2
    assert c["multiplicity"] == 3.0 and c["ratio_all_to_root"] == 3.0


def test_not_applicable_reasons() -> None:
    assert cost_section(Archive("x", "jsonl")) == {
        "applicable": False,
        "reason": "no trace spans (give --spans FILE, or a log with model-call events)"}
    assert cost_section(Archive("x", "jsonl", spans=[TraceSpan("t", None, "tool"),
                                                     TraceSpan("u", None, "agent")])) == {
        "applicable": False, "reason": "none of the 2 spans is a model-call span"}


def test_unresolved_span_ids_list_is_capped_at_100() -> None:
    spans = []
    for i in range(101):
        spans += [_span(f"p{i:03d}", None, (5, 5, 0), 1.0, response=f"p{i}"),
                  _span(f"c{i:03d}", f"p{i:03d}", (1, 1, 0), 0.5, response=f"c{i}")]
    al = cost_section(Archive("x", "jsonl", spans=spans))["alignment"]
    assert al["unresolved"] == 101 and len(al["unresolved_span_ids"]) == 100
    assert al["unresolved_span_ids"][0] == "p000" and al["unresolved_span_ids"][-1] == "p099"


def test_equal_accuracy_at_lower_cost_dominates() -> None:
    rows = [("cheap", 1.0, 0.5), ("dear", 2.0, 0.5), ("best", 3.0, 0.9)]
    assert pareto_frontier(rows) == {"cheap", "best"}


def test_spans_without_token_counts_are_counted_and_never_aligned_by_usage() -> None:
    # o's counts are unknown (0s): it matches its child by nothing, so both stay billable. p's
    # children sum to p's usage only if the unknown q3 counts as 0: not proven, unresolved.
    spans = [_span("o", None, (0, 0, 0), None, run="R", known=False),
             _span("i", "o", (0, 0, 0), None, run="R", known=False),
             _span("p", None, (30, 3, 0), None, run="R"),
             _span("q1", "p", (15, 2, 0), None, run="R"),
             _span("q2", "p", (15, 1, 0), None, run="R"),
             _span("q3", "p", (0, 0, 0), None, run="R", known=False)]
    c = cost_section(Archive("x", "jsonl", spans=spans))
    assert c["weight"] == "tokens"
    assert c["all_spans"] == _totals(6, 60, 6, 0, None, unknown=3)
    a = c["alignment"]
    assert (a["by_usage"], a["by_usage_sum"], a["unresolved"]) == (0, 0, 2)  # o and p
    assert c["billable_events"] == 6 and c["weight_unknown"] == 3
    assert c["multiplicity"] == 1.0  # no copies among the events whose weight is known
    # with q3's counts known to be 0, p is the sum of its children: one copy of each
    known = [*spans[:5], _span("q3", "p", (0, 0, 0), None, run="R")]
    k = cost_section(Archive("x", "jsonl", spans=known))
    assert k["alignment"]["by_usage_sum"] == 1 and k["weight_unknown"] == 2


def test_a_run_with_unknown_token_counts_is_left_off_a_token_frontier() -> None:
    spans = [_span("a", None, (40, 10, 0), None, run="R1"),
             _span("b", None, (30, 30, 0), None, run="R2"),
             _span("c", None, (10, 0, 0), None, run="R3"),
             _span("c2", None, (0, 0, 0), None, run="R3", known=False)]
    acc = {"R1": 0.9, "R2": 0.8, "R3": 0.95}
    p = cost_section(Archive("x", "jsonl", spans=spans), acc)["pareto"]
    # R3's total (10 tokens known) would dominate both: it is a lower bound, so R3 is left out
    assert p["applicable"] and p["excluded_usage_unknown"] == ["R3"]
    assert [r["run"] for r in p["rows"]] == ["R1", "R2"]
    alone = cost_section(Archive("x", "jsonl", spans=spans[:1] + spans[2:]), acc)["pareto"]
    assert alone == {"applicable": False, "excluded_usage_unknown": ["R3"], "reason":
                     "fewer than two runs with both cost and accuracy (left out, some of their "
                     "spans have no token counts: R3)"}
