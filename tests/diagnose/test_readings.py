"""Readings are consistent with their predicates by construction (docs/diagnose.md, "Readings").

What each reading asserts about the numbers is written out here, independently of
`diagnose/readings.py`; every combination of predicate values is walked, so no reading can
contradict the predicates printed beside it.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from agentmetrology.diagnose.family import adjust_family, describe_family
from agentmetrology.diagnose.metrics import diagnose_pairs, read_group, reading
from agentmetrology.diagnose.pairs import Pair, Side
from agentmetrology.diagnose.readings import MIN_TASKS, PREDICATES, predicates, read
from agentmetrology.records.episode import EpisodeKey

# reading -> what it asserts (predicate: required value); None-valued predicates satisfy nothing
ASSERTS: dict[str, dict[str, bool]] = {
    "fails regardless": {"fails_both": True},
    "small gap, passes lost": {"equivalent": True, "loses_passes": True, "fails_both": False},
    # robust never stands beside passing originals that fail under the mutation (MTR 0 read
    # "robust" on ResearchOpsEnv: overfit under constraint)
    "robust": {"equivalent": True, "behaviour_changed": False, "fails_both": False,
               "loses_passes": False},
    "robust score, changed behaviour": {"equivalent": True, "behaviour_changed": True,
                                        "fails_both": False, "loses_passes": False},
    "evaluator sensitivity": {"different": True, "equivalent": False, "rescoring_closes": True,
                              "behaviour_changed": False, "fails_both": False},
    "behavioural failure": {"different": True, "equivalent": False, "behaviour_changed": True,
                            "rescoring_closes": False, "fails_both": False},
    "score change without behaviour change": {"different": True, "equivalent": False,
                                              "behaviour_changed": False,
                                              "rescoring_closes": False, "fails_both": False},
    "inconclusive": {},
}


def _holds(want: bool, got: bool | None) -> bool:
    # "not X" is satisfied by a predicate that is False, or absent (None) for the negatives a
    # reading excludes; a positive requirement needs True.
    return got is True if want else got is not True


@pytest.mark.parametrize("values", list(itertools.product((True, False, None),
                                                          repeat=len(PREDICATES))))
def test_no_reading_contradicts_its_predicates(values: tuple[bool | None, ...]) -> None:
    p = dict(zip(PREDICATES, values, strict=True))
    got = read(p, "mutation")
    assert got in ASSERTS
    for name, want in ASSERTS[got].items():
        assert _holds(want, p[name]), (got, p)
    if p["behaviour_changed"] is False:
        assert got != "behavioural failure"
    if p["equivalent"] is True and p["fails_both"] is not True and \
            p["behaviour_changed"] is not None:
        # an equivalence is never read as a failure, nor as robust when passes are lost
        assert got == "small gap, passes lost" if p["loses_passes"] else got.startswith("robust")


@pytest.mark.parametrize("values", list(itertools.product((True, False, None),
                                                          repeat=len(PREDICATES))))
def test_controls_and_evaluator_changes_are_never_diagnosed(values: tuple[bool | None, ...]
                                                            ) -> None:
    p = dict(zip(PREDICATES, values, strict=True))
    assert read(p, "control") == "repeat control"
    assert read(p, "evaluator") == "evaluator change (by construction)"


def _m(**over: Any) -> dict[str, Any]:
    base = {"complete": 6, "tasks": 6, "msr": 0.5, "msr_original": 0.5,
            "behaviour_changed": 0.0, "vrg": {"value": 0.3, "interval": [0.1, 0.5]},
            "rescored_gap": None,
            "paired": {"p_values": {"difference": 0.001, "equivalence": 0.9}}}
    return {**base, **over}


CLOSED = {"value": 0.0, "interval": [-0.05, 0.05]}


@pytest.mark.parametrize(("m", "want"), [
    (_m(), {"different": True, "equivalent": False, "rescoring_closes": None,
            "behaviour_changed": False, "fails_both": False}),
    (_m(rescored_gap=CLOSED), {"rescoring_closes": True}),
    (_m(rescored_gap={"value": 0.1, "interval": [-0.05, 0.2]}), {"rescoring_closes": False}),
    (_m(rescored_gap={"value": 0.05, "interval": [0.01, 0.09]}), {"rescoring_closes": False}),
    # no interval (fewer than 3 tasks rescored): whether rescoring closes the gap is not read
    (_m(rescored_gap={"value": 0.0, "interval": None}), {"rescoring_closes": None}),
    (_m(behaviour_changed=0.25), {"behaviour_changed": True}),
    (_m(msr=0, msr_original=0), {"fails_both": True}),
    (_m(msr=0, msr_original=0.5), {"fails_both": False}),
    (_m(paired={"note": "not computable"}), {"different": None, "equivalent": None}),
    (_m(paired={"p_values": {"difference": 0.001, "equivalence": 0.001},
                "holm": {"difference": 0.06, "equivalence": 0.04}}),
     {"different": False, "equivalent": True}),  # the Holm-adjusted p decides
    (_m(paired={"p_values": {"difference": 0.05, "equivalence": 0.5}}), {"different": False}),
])
def test_predicates_over_the_printed_numbers(m: dict[str, Any], want: dict[str, Any]) -> None:
    got = predicates(m, margin=0.10)
    assert {k: got[k] for k in want} == want


@pytest.mark.parametrize(("m", "mutation", "want"), [
    (_m(vrg={"value": 0.01234}), "repeat", "repeat control"),
    (_m(rescored_gap=CLOSED), "rubric", "evaluator change (by construction)"),
    (_m(complete=0, tasks=0), "alias", "insufficient evidence"),
    (_m(tasks=MIN_TASKS - 1), "alias", "insufficient evidence"),
    (_m(msr=0, msr_original=0), "alias", "fails regardless"),
    (_m(rescored_gap=CLOSED), "alias", "evaluator sensitivity"),
    (_m(rescored_gap=CLOSED, behaviour_changed=0.25), "alias", "inconclusive"),
    (_m(behaviour_changed=1.0), "alias", "behavioural failure"),
    (_m(), "constraint", "score change without behaviour change"),
    (_m(paired={"p_values": {"difference": 0.001, "equivalence": 0.01}}), "constraint",
     "robust"),  # a real gap inside the margin: equivalence wins, as in stats
    (_m(behaviour_changed=0.5, paired={"p_values": {"difference": 0.5, "equivalence": 0.01}}),
     "format", "robust score, changed behaviour"),
    (_m(paired={"p_values": {"difference": 0.5, "equivalence": 0.5}}), "alias", "inconclusive"),
])
def test_readings_of_hand_built_groups(m: dict[str, Any], mutation: str, want: str) -> None:
    assert reading(m, mutation)[0] == want


def test_the_repeat_control_says_its_gap_and_insufficient_evidence_says_n() -> None:
    assert reading(_m(vrg={"value": 0.01234}), "repeat") == (
        "repeat control", "identical rerun: mean gap 0.012")
    assert reading(_m(vrg=None), "repeat")[1] == "identical rerun: mean gap n/a"
    m = _m(tasks=1)
    read_group(m, "alias", 0.10)
    # "1 task", not "1 tasks"; and no test ran on one task, so the why does not say "the gap is
    # real" (it said so from a bootstrap over one task, beside "different: yes")
    assert m["verdict"]["text"] == "insufficient evidence (n = 1 task, needs 6)"
    assert m["why"] == ("insufficient: 1 task, the test needs 6 (outside the Holm family) "
                        "(withheld: inconclusive)")
    assert m["predicates"]["different"] is None and m["predicates"]["equivalent"] is None
    assert m["untested"]["different"].startswith("insufficient: 1 task")


def test_a_reading_that_moves_with_the_threshold_says_so() -> None:
    m = _m(sweep={"0.5": {"msr": 0.5, "msr_original": 0.5, "mtr": 1.0},
                  "0.8": {"msr": 0.0, "msr_original": 0.0, "mtr": None}})
    read_group(m, "alias", 0.10)
    assert m["sweep"]["0.5"]["reading"] == "score change without behaviour change"
    assert m["sweep"]["0.8"]["reading"] == "fails regardless"
    assert m["stability"] == "unstable across thresholds"
    assert m["verdict"]["consistent"] == ["fails regardless",
                                          "score change without behaviour change"]
    steady = _m(sweep={"0.5": {"msr": 0.5, "msr_original": 0.5, "mtr": 1.0}})
    read_group(steady, "alias", 0.10)
    assert steady["stability"] == "stable across thresholds"


KEY = EpisodeKey("c", "t", "task", 0, "clean", "L2", 0)


def _pairs(mutation: str, target: str, gap: float, n: int = 6) -> list[Pair]:
    return [Pair(("e", target, "L2", mutation), f"task{i}", 0, 0, "clean",
                 Side(KEY, True, 1.0, 1.0, True, None, "", None, b"x"),
                 Side(KEY, True, 1.0 - gap, 1.0, True, 1.0, "", None, b"x"))
            for i in range(n)]


def test_the_family_is_holm_adjusted_and_named() -> None:
    pairs = (_pairs("alias", "a", 0.3) + _pairs("format", "a", 0.0) + _pairs("repeat", "a", 0.0)
             + _pairs("rubric", "a", 0.2) + _pairs("alias", "b", 0.3))
    groups = diagnose_pairs(pairs, seed=0)
    members = [k for k, m in groups.items() if "holm" in m["paired"]]
    assert members == [("e", "a", "L2", "alias"), ("e", "a", "L2", "format"),
                       ("e", "b", "L2", "alias")]  # not the repeat control, not the rubric
    alias = groups[("e", "a", "L2", "alias")]["paired"]
    # Holm over 3: the smallest of three equal p-values is tripled
    assert alias["holm"]["difference"] == pytest.approx(3 * alias["p_values"]["difference"])
    assert alias["holm"]["family_size"] == 3
    fam = describe_family({"|".join(k): m for k, m in groups.items()})
    assert fam["size"] == 3 and "repeat control" in fam["family"]
    assert fam["members"] == ["e|a|L2|alias", "e|a|L2|format", "e|b|L2|alias"]


def test_a_family_without_a_comparison_adjusts_nothing() -> None:
    groups: dict[Any, dict[str, Any]] = {("e", "t", "L2", "alias"): {"paired": {"note": "x"}}}
    adjust_family(groups)
    assert "holm" not in groups[("e", "t", "L2", "alias")]["paired"]


def test_a_withheld_reading_is_withheld_at_every_threshold_and_never_unstable() -> None:
    # Below 6 tasks the reading is withheld; the sweep must not print the reading it withheld
    # (robust at 1 task) at each threshold, nor call the same reading at every threshold
    # "unstable across thresholds" (found: insufficient evidence ..., unstable across thresholds).
    sweep = {t: {"msr": 1.0, "msr_original": 1.0, "mtr": 1.0} for t in ("0.5", "0.65", "0.8")}
    m = _m(tasks=1, paired={"p_values": {"difference": 0.5, "equivalence": 0.01}}, sweep=sweep)
    read_group(m, "alias", 0.10)
    assert m["verdict"]["text"] == "insufficient evidence (n = 1 task, needs 6)"
    assert [r["reading"] for r in m["sweep"].values()] == ["insufficient evidence"] * 3
    assert m["stability"] == "stable across thresholds"
    assert m["verdict"]["consistent"] == ["insufficient evidence"]
    assert m["verdict"]["stable"] is True
    assert "withheld: inconclusive" in m["why"]  # no test ran: nothing reads as robust
    enough = _m(tasks=MIN_TASKS, paired={"p_values": {"difference": 0.5, "equivalence": 0.01}},
                sweep=sweep)
    read_group(enough, "alias", 0.10)
    assert [r["reading"] for r in enough["sweep"].values()] == ["robust"] * 3


def test_a_reading_without_an_inverse_map_never_says_rescoring_was_done() -> None:
    # constraint (no inverse map): the rescored gap is n/a, but the why printed beside it said
    # "the gap is real, ..., and rescoring does not close it", a rescoring that never happened
    assert reading(_m(behaviour_changed=1.0), "constraint") == (
        "behavioural failure", "the gap is real, the operations or outcomes changed, and there "
        "is no inverse map to rescore under (rescored gap n/a)")
    assert reading(_m(), "wording") == (
        "score change without behaviour change", "the gap is real and there is no inverse map "
        "to rescore under (rescored gap n/a), but the operations and outcomes did not change: "
        "the mutation moved the score, not the agent")
    kept = {"value": 0.3, "interval": [0.1, 0.5]}  # rescored under the alias map: the gap stays
    assert reading(_m(behaviour_changed=1.0, rescored_gap=kept), "alias") == (
        "behavioural failure", "the gap is real, the operations or outcomes changed, and "
        "rescoring does not close it")


def test_a_rescored_gap_without_an_interval_decides_no_reading() -> None:
    # 4 tasks, a real gap, but rescoring measurable on 2 tasks only: its gap has no interval
    # (a bootstrap over 2 tasks has 3 distinct resamples). It read "evaluator sensitivity" off
    # the value alone (an absent interval counted as covering 0); whether rescoring closes the
    # gap is not known, so the reading is inconclusive and says why.
    note = ("no interval: 2 clusters; a bootstrap over 2 clusters has 3 distinct resamples, "
            "an interval needs at least 3 clusters")
    m = _m(rescored_gap={"value": 0.01, "interval": None, "interval_note": note})
    read_group(m, "alias", 0.10)
    assert m["predicates"]["rescoring_closes"] is None
    assert m["untested"] == {"rescoring_closes": f"not read: the rescored gap has {note}"}
    assert m["reading"] == "inconclusive"
    assert m["why"].endswith(f"; rescoring not read: the rescored gap has {note}")
    assert read(m["predicates"], "mutation") == "score change without behaviour change"
    closed = _m(rescored_gap={"value": 0.01, "interval": [-0.02, 0.04]})
    read_group(closed, "alias", 0.10)
    assert closed["reading"] == "evaluator sensitivity" and closed["untested"] == {}
