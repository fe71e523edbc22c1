"""The enforced-quota variant (docs/comtrade.md): `stress:squeeze:slack=K` on T9_clean_ab."""

from statistics import fmean

import pytest

from agentmetrology.run.episode import canonical_condition, make_env, run_one
from support.comtrade_runs import COMTRADE

RULES = ("l1:always-retry", "l1:always-skip", "l1:quota-aware")
TASK = "T9_clean_ab"


def _coverage(agent: str, slack: int) -> list[float]:
    return [run_one(COMTRADE, TASK, s, agent, "L1",
                    condition=f"stress:squeeze:slack={slack}").assessment("ground_truth")
            .components["recall"] for s in range(10)]


def test_condition_spelling_and_refusals() -> None:
    assert canonical_condition(COMTRADE, "stress:squeeze:slack=03") == "stress:squeeze:slack=3"
    for bad in ("stress:squeeze:slack=-1", "stress:squeeze:slack=x",
                "stress:squeeze:slack=21"):
        with pytest.raises(ValueError, match=r"slack must be an integer in 0\.\.20"):
            canonical_condition(COMTRADE, bad)


def test_quota_is_pages_plus_squeeze_plus_slack_and_the_squeeze_fires_once() -> None:
    env = make_env(COMTRADE, TASK, 0, "seeded", "stress:squeeze:slack=2")
    assert env.service.budget == 5 + 3 + 2  # type: ignore[attr-defined]
    ep = run_one(COMTRADE, TASK, 0, "l1:always-retry", "L1",
                 condition="stress:squeeze:slack=2").episode
    squeezes = [p for e in ep.events if e.kind == "perturbation"
                for p in e.result["perturbations"] if p.get("budget_delta")]
    assert squeezes == [{"kind": "budget", "budget_delta": -3}]


def test_zero_slack_is_decision_invariant() -> None:
    # With no slack, retrying and skipping spend the same last request: the design cannot
    # tell the decisions apart, whatever the rule.
    vectors = {rule: _coverage(rule, 0) for rule in RULES}
    assert len({tuple(v) for v in vectors.values()}) == 1


def test_slack_is_a_dose_response_for_retrying_only() -> None:
    retry = [fmean(_coverage("l1:always-retry", k)) for k in (0, 1, 2, 4)]
    skip = [fmean(_coverage("l1:always-skip", k)) for k in (0, 1, 2, 4)]
    assert retry == sorted(retry) and retry[-1] > retry[0]  # more slack, more coverage
    assert len(set(skip)) == 1  # skipping never uses the slack
    assert _coverage("l1:quota-aware", 2) == _coverage("l1:always-retry", 2)
