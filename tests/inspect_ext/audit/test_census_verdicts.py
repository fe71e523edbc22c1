"""A census row's criterion is the card's verdict, with one rule for built-in and Inspect rows:
n counts samples compared (a seeded target's (task, seed) instances), and the summary counts a
verdict below its minimum as insufficient evidence, never as the status it withholds."""

from __future__ import annotations

from typing import Any

from agentmetrology.audit.criterion_verdict import MIN_SAMPLES
from agentmetrology.inspect_ext.audit.census import (
    census_row,
    criterion_reading,
    shipped_configuration,
    summarize,
)


def _scorer(criterion: str, verdict: dict[str, Any] | None) -> dict[str, Any]:
    return {"criterion": criterion, "criterion_verdict": verdict, "kind": "outcome",
            "claim": "no claim licensed"}


def test_a_built_in_row_carries_the_cards_criterion_verdict_in_samples() -> None:
    row = census_row("builtin:permission", limit=None)
    (sc,) = row["scorers"]
    v = sc["criterion_verdict"]
    # one probe task on MIN_SAMPLES seeds: three samples, each comparing correct with the one
    # probe declared to miss the goal (careless), so the goal's check is a test it passes
    assert (v["verdict"], v["n"], v["counted"], v["minimum"]) == (
        "pass", MIN_SAMPLES, "samples compared", MIN_SAMPLES)
    assert v["sufficient"] and v["text"] == "pass (n = 3 samples compared)"
    assert sc["criterion"] == "pass" and sc["claim"] == "model capability"
    assert criterion_reading(sc) == "pass"
    assert sc["criterion_pairs"] >= v["n"]  # pairs are what each sample compared, not n


def test_the_summary_counts_what_each_verdict_reads() -> None:
    low = {"verdict": "pass", "n": 2, "sufficient": False, "stable": True}
    split = {"verdict": "fail", "n": 8, "sufficient": True, "stable": False}
    ok = {"verdict": "fail", "n": 20, "sufficient": True, "stable": True}
    scorers = [_scorer("pass", low), _scorer("fail", split), _scorer("fail", ok),
               _scorer("not probed", None)]
    assert [criterion_reading(s) for s in scorers] == [
        "insufficient evidence", "fail, unstable", "fail", "not probed"]
    doc = summarize([{"status": "probed", "needs": None, "scorers": scorers}])
    assert doc["by_criterion"] == {"fail": 1, "fail, unstable": 1, "insufficient evidence": 1,
                                   "not probed": 1}


def test_a_criterion_nothing_judged_is_printed_without_an_n() -> None:
    # as the card prints it: "not probed" rests on nothing, so it says no n; an outcome probe
    # judged on too few tasks keeps its n and minimum, whatever its status field says
    from agentmetrology.report.terminal.inspect_audit import census_rows

    nothing = {"verdict": "not probed", "n": 3, "sufficient": True, "stable": True,
               "text": "not probed (n = 3 samples compared)"}
    few = {"verdict": "pass", "n": 1, "sufficient": False, "stable": True,
           "text": "insufficient evidence (n = 1 task compared, needs 3)"}
    rows = [{"benchmark": "b", "status": "probed", "samples": 3, "scorers": [
        {**_scorer("not probed", nothing), "scorer": "s1", "empty_scored": None},
        {**_scorer("not probed", few), "scorer": "s2", "empty_scored": None}]}]
    cells = [r[3] for r in census_rows({"rows": rows})]
    assert cells == ["not probed", "insufficient evidence (n = 1 task compared, needs 3)"]
    assert [criterion_reading(s) for s in rows[0]["scorers"]] == [
        "not probed", "insufficient evidence"]


def test_the_shipped_configuration_is_found_on_both_kinds_of_card() -> None:
    # An environment's card names `LEVEL|scorer`; the census compared that with the scorer's
    # name, never matched, and fell back to the first configuration whatever it was.
    env_card = {"shipped_configuration": "L2|judge", "configurations": [
        {"level": "L0", "scorer": "judge"}, {"level": "L2", "scorer": "truth"},
        {"level": "L2", "scorer": "judge"}]}
    assert shipped_configuration(env_card) == {"level": "L2", "scorer": "judge"}
    target_card = {"shipped_configuration": "match", "configurations": [
        {"level": None, "scorer": "other"}, {"level": None, "scorer": "match"}]}
    assert shipped_configuration(target_card) == {"level": None, "scorer": "match"}
    assert shipped_configuration({"shipped_configuration": "x", "configurations": []}) is None
