"""Paired-mutation metrics and readings on hand-built pairs (docs/diagnose.md, diagnose/metrics.py).

VRG = S(original) - S(mutated); the rescored gap uses the rescored mutated side; MSR_tau =
Pr[S(mutated) >= tau]; MTR_tau = Pr[S(mutated) >= tau | S(original) >= tau], null when no
original passes; behaviour changed = operations or truth outcome differ. Intervals come from the
task-cluster bootstrap and the paired comparison of the statistics layer (pinned in tests/stats);
here every value the diagnostics layer computes itself is written out.
"""

from __future__ import annotations

from statistics import fmean
from typing import Any

import numpy as np
import pytest

from agentmetrology.diagnose.metrics import (
    MARGIN,
    SWEEP,
    TAU,
    add_excess_flips,
    diagnose_pairs,
    group_metrics,
    reading,
)
from agentmetrology.diagnose.pairs import Pair, Side, _value
from agentmetrology.records.episode import EpisodeKey
from agentmetrology.stats import (
    bootstrap_p_values,
    cluster_bootstrap,
    compare_paired,
    excess_flip_rate,
)

KEY = EpisodeKey("c", "t", "task", 0, "clean", "L2", 0)


def _side(shipped: float, truth: float = 1.0, truth_pass: bool = True,
          rescored: float | None = None, ptd: float | None = None, ops: bytes = b"x",
          measured: bool = True) -> Side:
    return Side(KEY, measured, shipped, truth, truth_pass, rescored, "", ptd, ops)


def _pair(task: str, original: Side | None, mutated: Side | None, mutation: str = "alias",
          target: str = "t") -> Pair:
    return Pair(("e", target, "L2", mutation), task, 0, 0, "clean", original, mutated)


# task: (original shipped, mutated shipped, rescored, truth o/m, truth_pass o/m, ptd, same ops)
ROWS = {"t0": (1.0, 0.4, 1.0, (1.0, 1.0), (True, True), 0.1, True),
        "t1": (0.8, 0.8, None, (1.0, 0.5), (True, False), None, True),
        "t2": (0.6, 0.5, 0.6, (0.5, 0.5), (False, False), -0.2, False),
        "t3": (0.2, 0.6, 0.2, (0.0, 0.0), (False, False), 0.3, True)}


def _pairs() -> list[Pair]:
    out = []
    for task, (o, m, r, (to, tm), (po, pm), ptd, same) in ROWS.items():
        out.append(_pair(task, _side(o, to, po), _side(m, tm, pm, r, ptd,
                                                       b"x" if same else b"y")))
    extra = _side(0.9)
    out += [_pair("t4", extra, None), _pair("t5", None, extra),
            _pair("t6", extra, _side(0.9, measured=False))]
    return out


def test_group_metrics_value_by_value() -> None:
    m = group_metrics(_pairs(), seed=7, tau=0.5)
    assert (m["pairs"], m["complete"], m["half_finished"], m["unmeasured"]) == (7, 4, 2, 1)
    tasks = list(ROWS)
    gaps = [0.6, 0.0, 0.1, -0.4]
    est = cluster_bootstrap(np.array([1.0 - 0.4, 0.8 - 0.8, 0.6 - 0.5, 0.2 - 0.6]), tasks,
                            seed=7).to_dict()
    assert est["value"] == pytest.approx(fmean(gaps))
    assert m["vrg"] == {"value": est["value"], "interval": est["interval"],
                        "method": est["method"]}
    resc = cluster_bootstrap(np.zeros(3), ["t0", "t2", "t3"], seed=7).to_dict()
    assert m["rescored_gap"] == {"value": 0.0, "interval": resc["interval"],
                                 "method": resc["method"]}
    assert m["msr"] == 0.75  # 0.4 fails; 0.8, 0.5 (at tau exactly) and 0.6 pass
    assert m["msr_original"] == 0.75  # 1.0, 0.8, 0.6 pass; 0.2 fails
    assert m["mtr"] == pytest.approx(2 / 3)  # of the three passing originals, t0 fell
    assert m["rescored_excluded"] == 1  # t1's rescoring was not measurable: said, not hidden
    assert m["ptd"] == pytest.approx(fmean([0.1, -0.2, 0.3]))
    assert m["ptd_pairs"] == 3  # t1 reports no proxy reward
    assert m["behaviour_changed"] == 0.5  # t1: the truth outcome, t2: the operations
    assert m["truth_original"] == 0.625 and m["truth_mutated"] == 0.5
    a, b = np.array([0.4, 0.8, 0.5, 0.6]), np.array([1.0, 0.8, 0.6, 0.2])
    res = compare_paired(a, b, clusters=tasks, margin=MARGIN, tau=0.5, seed=7)
    cmp = res.to_dict()
    p_diff, p_eq = bootstrap_p_values(a, b, res.equivalence, clusters=tasks)
    p_flip = cmp["sign_flip"]["p_value"]
    # the difference p is the larger of the bootstrap's and the exact sign-flip test's
    assert m["paired"] == {"difference": cmp["difference"], "equivalence": cmp["equivalence"],
                           "sign_flip_p": p_flip, "unit": cmp["unit"],
                           "bootstrap_difference_p": p_diff,
                           "p_values": {"difference": max(p_diff, p_flip), "equivalence": p_eq}}
    assert m["tasks"] == 4


def test_the_default_threshold_is_the_papers_and_the_sweep_is_reported() -> None:
    # tau 0.65 (TRACE's), was 0.5: the pass rates at the default move with it.
    assert (TAU, MARGIN, SWEEP) == (0.65, 0.10, (0.5, 0.65, 0.8))
    m = group_metrics(_pairs(), seed=7)
    assert (m["msr"], m["msr_original"], m["mtr"]) == (0.25, 0.5, 0.5)  # only 0.8 kept
    assert m["sweep"] == {"0.5": {"msr": 0.75, "msr_original": 0.75, "mtr": pytest.approx(2 / 3)},
                          "0.65": {"msr": 0.25, "msr_original": 0.5, "mtr": 0.5},
                          "0.8": {"msr": 0.25, "msr_original": 0.5, "mtr": 0.5}}


def test_tau_and_margin_are_parameters() -> None:
    m = group_metrics(_pairs(), seed=7, tau=0.9)
    assert (m["msr"], m["msr_original"], m["mtr"]) == (0.0, 0.25, 0.0)


def test_one_task_has_no_interval_and_no_rescoring_has_no_rescored_gap() -> None:
    pairs = [_pair("only", _side(1.0), _side(0.5)), _pair("only", _side(0.5), _side(0.5))]
    m = group_metrics(pairs, seed=0)
    assert m["vrg"] == {"value": 0.25, "interval": None,
                        "method": "task-cluster bootstrap of the mean (1 cluster, 2 values)",
                        "interval_note": ("no interval: 1 cluster; a bootstrap over 1 cluster "
                                          "has 1 distinct resample, an interval needs at least "
                                          "3 clusters")}
    assert m["rescored_gap"] is None
    assert m["ptd"] is None
    assert m["paired"]["unit"] == "cluster"


@pytest.mark.parametrize(("doc", "component", "scale", "want"), [
    ({"status": "PASS", "score": 80.0}, None, 100.0, 0.8),
    ({"status": "FAIL", "score": 0}, None, 1.0, 0.0),
    ({"status": "PASS", "score": 0.9, "components": {"f1_exact": 0.5}}, "f1_exact", 1.0, 0.5),
    ({"status": "PASS", "score": 0.9, "components": {}}, "f1_exact", 1.0, None),
    ({"status": "PASS", "score": 0.9, "components": {"f1_exact": "0.5"}}, "f1_exact", 1.0,
     None),
    ({"status": "PASS", "score": 0.9}, "f1_exact", 1.0, None),
    ({"status": "UNKNOWN", "score": 0.9}, None, 1.0, None),
    ({"status": "INVALID", "score": 0.9}, None, 1.0, None),
    ({"status": "PASS", "score": None}, None, 1.0, None),
    ({"status": "PASS", "score": float("nan")}, None, 1.0, None),
    ({"status": "PASS", "score": float("inf")}, None, 1.0, None),
    ({"status": "PASS", "score": 0.9, "components": {"f1_exact": float("nan")}}, "f1_exact",
     1.0, None),
    (None, None, 1.0, None),
])
def test_a_side_reads_a_finite_score_or_nothing(doc: Any, component: str | None, scale: float,
                                                want: float | None) -> None:
    assert _value(doc, component, scale) == want


def test_nothing_complete_is_a_note_not_a_zero() -> None:
    m = group_metrics([_pair("a", _side(1.0), None), _pair("b", _side(1.0),
                                                          _side(0.0, measured=False))], seed=0)
    assert m == {"pairs": 2, "complete": 0, "half_finished": 1, "unmeasured": 1,
                 "note": "no complete, measured pair"}


def test_no_passing_original_leaves_mtr_undefined() -> None:
    m = group_metrics([_pair(f"t{i}", _side(0.1), _side(0.9)) for i in range(3)], seed=0)
    assert m["mtr"] is None and m["msr"] == 1.0 and m["msr_original"] == 0.0


def _flip_pairs(mutation: str, outcomes: list[tuple[float, float]], target: str = "t"
                ) -> list[Pair]:
    return [_pair(f"t{i}", _side(o), _side(m), mutation, target)
            for i, (o, m) in enumerate(outcomes)]


def test_excess_flips_against_the_repeat_control_of_the_same_group() -> None:
    alias = _flip_pairs("alias", [(1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (0.6, 0.5)])
    alias.append(_pair("half", _side(1.0), None))
    repeat = _flip_pairs("repeat", [(1.0, 1.0), (1.0, 0.0), (0.0, 0.0)])
    lonely = _flip_pairs("format", [(1.0, 0.0)], target="other")  # no repeat control
    pairs = {p.group: [] for p in alias + repeat + lonely}
    for p in alias + repeat + lonely:
        pairs[p.group].append(p)
    groups = {g: group_metrics(ps, seed=3) for g, ps in pairs.items()}
    add_excess_flips(groups, pairs, seed=3)
    want = excess_flip_rate(np.array([1, 1, 0, 1]), np.array([0, 1, 1, 1]),
                            np.array([1, 1, 0]), np.array([1, 0, 0]), same_units=False,
                            seed=3, clusters=(["t0", "t1", "t2", "t3"], ["t0", "t1", "t2"])
                            ).to_dict()
    assert groups[("e", "t", "L2", "alias")]["excess_flip_rate"] == want
    assert "excess_flip_rate" not in groups[("e", "t", "L2", "repeat")]
    assert "excess_flip_rate" not in groups[("e", "other", "L2", "format")]


def test_no_excess_flips_without_complete_pairs_on_either_side() -> None:
    alias = _flip_pairs("alias", [(1.0, 0.0), (1.0, 1.0)])
    broken_repeat = [_pair("t0", _side(1.0), _side(1.0, measured=False), "repeat")]
    pairs = {alias[0].group: alias, broken_repeat[0].group: broken_repeat}
    groups = {g: group_metrics(ps, seed=0) for g, ps in pairs.items()}
    add_excess_flips(groups, pairs, seed=0)
    assert "excess_flip_rate" not in groups[alias[0].group]
    empty = [_pair("t0", _side(1.0), None, "misleading")]
    repeat = _flip_pairs("repeat", [(1.0, 1.0), (1.0, 0.0)])
    pairs = {empty[0].group: empty, repeat[0].group: repeat}
    groups = {g: group_metrics(ps, seed=0) for g, ps in pairs.items()}
    add_excess_flips(groups, pairs, seed=0)
    assert "excess_flip_rate" not in groups[empty[0].group]


def test_diagnose_pairs_groups_sorts_and_reads_every_group() -> None:
    pairs = _flip_pairs("repeat", [(1.0, 1.0)] * 3) + _flip_pairs("alias", [(1.0, 0.0)] * 3)
    groups = diagnose_pairs(pairs, seed=0)
    assert list(groups) == [("e", "t", "L2", "alias"), ("e", "t", "L2", "repeat")]
    assert groups[("e", "t", "L2", "repeat")]["reading"] == "repeat control"
    assert groups[("e", "t", "L2", "repeat")]["why"] == "identical rerun: mean gap 0.000"
    alias = groups[("e", "t", "L2", "alias")]
    assert (alias["reading"], alias["why"]) == reading(alias, "alias")
    assert alias["complete"] == 3 and "excess_flip_rate" in alias


def test_two_tasks_get_no_interval_and_three_get_one() -> None:
    # a bootstrap over 2 tasks has 3 distinct resamples: its "95% interval" [0.5, 1.0] was the
    # two task means; the statistics withhold it and say why, and diagnose passes that on
    pairs = [_pair("a", _side(1.0), _side(0.0)), _pair("b", _side(1.0), _side(0.5))]
    m = group_metrics(pairs, seed=0)
    assert m["vrg"] == {"value": 0.75, "interval": None,
                        "method": "task-cluster bootstrap of the mean (2 clusters, 2 values)",
                        "interval_note": ("no interval: 2 clusters; a bootstrap over 2 clusters "
                                          "has 3 distinct resamples, an interval needs at least "
                                          "3 clusters")}
    assert m["paired"]["equivalence"]["label"] == "insufficient evidence"
    assert m["paired"]["p_values"] == {"difference": None, "equivalence": None}
    pairs.append(_pair("c", _side(1.0), _side(1.0)))
    m = group_metrics(pairs, seed=0)
    est = cluster_bootstrap(np.array([1.0, 0.5, 0.0]), ["a", "b", "c"], seed=0).to_dict()
    assert m["vrg"] == {"value": 0.5, "interval": est["interval"], "method": est["method"]}
    assert m["vrg"]["interval"] is not None


def test_a_zero_score_is_a_zero_and_an_original_at_tau_passes() -> None:
    pairs = [_pair("a", _side(0.0), _side(0.0)), _pair("b", _side(0.5), _side(0.0))]
    m = group_metrics(pairs, seed=0, tau=0.5)
    assert m["vrg"]["value"] == 0.25  # (0 - 0 + 0.5 - 0) / 2
    assert (m["msr"], m["msr_original"], m["mtr"]) == (0.0, 0.5, 0.0)


def test_the_margin_reaches_the_paired_comparison() -> None:
    pairs = [_pair(f"t{i}", _side(1.0), _side(0.8 + 0.01 * i)) for i in range(6)]
    for margin in (0.1, 0.3):
        m = group_metrics(pairs, seed=0, margin=margin)
        cmp = compare_paired(np.array([0.8 + 0.01 * i for i in range(6)]), np.ones(6),
                             clusters=[f"t{i}" for i in range(6)], margin=margin, tau=TAU,
                             seed=0).to_dict()
        assert m["paired"]["equivalence"] == cmp["equivalence"]
    labels = {group_metrics(pairs, seed=0, margin=mg)["paired"]["equivalence"]["label"]
              for mg in (0.1, 0.3)}
    assert len(labels) == 2  # the margin decides the label here


def test_a_paired_comparison_that_cannot_be_computed_is_stated() -> None:
    pairs = [_pair(f"t{i}", _side(1.0), _side(0.5)) for i in range(3)]
    with pytest.raises(ValueError) as err:
        compare_paired(np.full(3, 0.5), np.ones(3), clusters=["t0", "t1", "t2"], margin=-0.1,
                       tau=TAU, seed=0)
    why = str(err.value)
    m = group_metrics(pairs, seed=0, margin=-0.1)
    assert m["paired"] == {"note": f"not computable: {why}"}
    assert m["vrg"]["value"] == 0.5  # the rest is still measured


def test_excess_flips_reach_every_group_whatever_comes_first() -> None:
    repeat_t = _flip_pairs("repeat", [(1.0, 1.0), (1.0, 0.0)], target="t")
    repeat_u = [_pair("t0", _side(1.0), _side(1.0, measured=False), "repeat", "u")]
    alias_u = _flip_pairs("alias", [(1.0, 0.0)], target="u")  # its repeat has no complete pair
    alias_t = _flip_pairs("alias", [(1.0, 0.0), (0.0, 0.0)], target="t")
    ordered = [repeat_t, repeat_u, alias_u, alias_t]  # skipped groups before the measured one
    pairs = {ps[0].group: ps for ps in ordered}
    groups = {g: group_metrics(ps, seed=0) for g, ps in pairs.items()}
    add_excess_flips(groups, pairs, seed=0)
    assert "excess_flip_rate" in groups[("e", "t", "L2", "alias")]
    assert "excess_flip_rate" not in groups[("e", "u", "L2", "alias")]


def test_gaps_that_cancel_within_a_task_are_a_gap_of_0_not_rounding_noise() -> None:
    # Found: per-task gaps 0.3-0.2, 0.7-0.8, 0.1-0.2, 0.9-0.8 (cancelling) gave VRG
    # -3.5e-17 with the interval [-3.5e-17, -3.5e-17]: a negative gap whose interval excludes
    # 0 (printed -0.000), beside a paired difference of exactly 0; the same noise in the
    # rescored gap made rescoring_closes false (its interval did not cover 0).
    steps = [(0.3, 0.2), (0.7, 0.8), (0.1, 0.2), (0.9, 0.8)]
    pairs = [_pair(f"t{i}", _side(o), _side(m, rescored=m)) for i in range(4) for o, m in steps]
    m = group_metrics(pairs, seed=0)
    assert m["vrg"]["value"] == 0.0 and m["vrg"]["interval"] == [0.0, 0.0]
    assert m["rescored_gap"]["value"] == 0.0 and m["paired"]["difference"]["value"] == 0.0
    one = group_metrics([_pair("t0", _side(o), _side(m)) for o, m in steps], seed=0)
    assert one["vrg"]["value"] == 0.0 and one["vrg"]["interval"] is None
