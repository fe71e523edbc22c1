"""A verdict never travels without its n; below the minimum it is withheld."""

from __future__ import annotations

import json

import pytest

from agentmetrology.records.canonical import canonical_json
from agentmetrology.records.verdict import INSUFFICIENT, Verdict


def test_a_verdict_is_printed_with_its_n() -> None:
    v = Verdict.judged("robust", 25, "task clusters", 3, interval=(-0.02, 0.01),
                       confidence=0.95, interval_of="VRG")
    assert v.sufficient and v.verdict == "robust"
    assert v.text() == "robust (n = 25 task clusters)"
    plain = v.to_dict()
    assert plain["n"] == 25 and plain["interval"] == [-0.02, 0.01]
    assert json.loads(canonical_json(plain)) == plain


def test_below_the_minimum_the_verdict_is_withheld() -> None:
    v = Verdict.judged("behavioural failure", 1, "task clusters", 3, why="the gap remains",
                       interval=(0.1, 0.2))
    assert v.verdict == INSUFFICIENT and not v.sufficient
    assert v.text() == "insufficient evidence (n = 1 task cluster, needs 3)"
    assert "withheld: behavioural failure" in v.why
    assert Verdict.judged("x", 3, "samples", 3).sufficient  # the minimum itself suffices


def test_consistent_verdicts_make_it_unstable() -> None:
    assert Verdict("robust", 5, "tasks", 3, consistent=("robust",)).stable
    v = Verdict("robust", 5, "tasks", 3, consistent=("robust", "fails regardless"))
    assert not v.stable and v.to_dict()["stable"] is False


@pytest.mark.parametrize("bad", [
    {"n": -1}, {"minimum": -2}, {"counted": ""}, {"interval": (0.0, float("nan"))}])
def test_malformed_verdicts_are_refused(bad: dict) -> None:
    args = {"verdict": "robust", "n": 3, "counted": "tasks", "minimum": 1, **bad}
    with pytest.raises(ValueError):
        Verdict(**args)


def _majority(items):
    from agentmetrology.records.verdict import Verdict
    passed = sum(items)
    return Verdict.judged("passes" if passed * 2 > len(items) else "fails", len(items),
                          "samples", 2)


def test_split_halves_by_index():
    from agentmetrology.records.verdict import split_halves
    assert split_halves([0, 1, 2, 3, 4]) == ([0, 2, 4], [1, 3])


def test_split_half_labels_disagreeing_halves_unstable():
    from agentmetrology.records.verdict import split_half
    items = [1, 0, 1, 0, 1, 0]  # even positions pass, odd fail
    v = split_half(_majority(items), items, _majority)
    assert v.verdict == "fails" and v.consistent == ("passes",) and not v.stable


def test_split_half_agreeing_halves_stable_and_small_halves_ignored():
    from agentmetrology.records.verdict import split_half
    items = [1, 1, 1, 1]
    assert split_half(_majority(items), items, _majority).stable
    few = [1, 0, 1]  # odd half has one sample, below the minimum of 2: it adds nothing
    v = split_half(_majority(few), few, _majority)
    assert v.verdict == "passes" and v.stable


def test_a_withheld_verdict_and_an_empty_half_are_never_unstable():
    from agentmetrology.records.verdict import Verdict, split_half

    def anything(items):  # a judge that needs no minimum and says something even on nothing
        return Verdict.judged("empty" if not items else "some", len(items), "samples", 0)

    one = [1]  # the odd half is empty: judged, it would say "empty"
    assert split_half(anything(one), one, anything).stable
    withheld = _majority([1])  # below its minimum of 2: already says nothing
    v = split_half(withheld, [1], lambda half: Verdict("fails", 5, "samples", 0))
    assert v.text() == "insufficient evidence (n = 1 sample, needs 2)" and v.stable


def test_a_count_of_one_reads_its_noun_in_the_singular() -> None:
    # "n = 1 samples compared" / "(n = 1 scorer declarations)" on every audit card
    assert Verdict("pass", 1, "samples compared", 0).text() == "pass (n = 1 sample compared)"
    assert Verdict("fail", 1, "scorer declarations", 0).text() == \
        "fail (n = 1 scorer declaration)"
    assert Verdict("pass", 2, "samples compared", 0).text() == "pass (n = 2 samples compared)"
    assert Verdict("pass", 1, "task", 0).text() == "pass (n = 1 task)"
    assert Verdict("pass", 1, "tasks compared (gold vs corrupted)", 0).to_dict()["counted"] \
        == "tasks compared (gold vs corrupted)"  # the data keeps the noun as given
