from typing import Any, cast

import numpy as np
import pytest

from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.envs.comtrade.adversary import MATCHED_MEAN, adversary_for
from agentmetrology.records.clock import FakeClock
from agentmetrology.runtime.recorder import Recorder
from agentmetrology.runtime.rng import rng
from agentmetrology.stress import (
    AgentProgress,
    ConstantSchedule,
    EscalatingAdversary,
    LinearSchedule,
    Perturbation,
    PlateauSchedule,
    StepSchedule,
    mean_intensity,
)


def p(successes: int) -> AgentProgress:
    return AgentProgress(successes, 0, successes)


def test_schedules_follow_successes() -> None:
    lin = LinearSchedule(horizon=4)
    assert [lin(p(k)) for k in range(6)] == [0.0, 0.25, 0.5, 0.75, 1.0, 1.0]
    assert [StepSchedule(2, 0.1, 0.9)(p(k)) for k in range(4)] == [0.1, 0.1, 0.9, 0.9]
    assert PlateauSchedule(2, 0.6)(p(1)) == pytest.approx(0.3)
    assert PlateauSchedule(2, 0.6)(p(9)) == pytest.approx(0.6)
    assert ConstantSchedule(0.6)(p(100)) == 0.6
    # driven by successes, not by elapsed steps
    assert lin(AgentProgress(1, 50, 51)) == lin(AgentProgress(1, 0, 1))


def test_matched_mean_arms() -> None:
    esc, _ = adversary_for("stress:escalating")
    const, _ = adversary_for("stress:constant")
    assert pytest.approx(0.60) == MATCHED_MEAN
    assert mean_intensity(esc, 5) == pytest.approx(mean_intensity(const, 5))
    assert [round(esc(p(k)), 10) for k in range(5)] == [0.2, 0.4, 0.6, 0.8, 1.0]


def test_escalating_adversary_probabilities() -> None:
    adv = EscalatingAdversary(fault_base=0.1, fault_scale=0.5, corruption_scale=0.3,
                              totals_at=0.7)
    n = 4000
    faults = sum(any(x.kind == "fault" for x in adv(p(0), 0.8, rng(7, i))) for i in range(n))
    assert abs(faults / n - 0.5) < 0.03  # 0.1 + 0.5 * 0.8
    quiet = adv(p(0), 0.0, rng(1, "none"))
    assert all(x.kind != "totals" for x in quiet)
    out = [adv(p(0), 0.8, rng(3, i)) for i in range(50)]
    non_fault = [o for o in out if not any(x.kind == "fault" for x in o)]
    assert non_fault and all(any(x.kind == "totals" for x in o) for o in non_fault)
    assert all(any(x.kind == "corrupt" and x.rate == pytest.approx(0.24) for x in o)
               for o in non_fault)



def _intents_made_fresh(adv: EscalatingAdversary, progress: AgentProgress, intensity: float,
                        u: float) -> tuple[Perturbation, ...]:
    """The adversary's intents for a draw u, each built anew (as before they were shared)."""
    if u < adv.fault_base + adv.fault_scale * intensity:
        return (Perturbation("fault", status=adv.fault_status),)
    out = []
    rate = adv.corruption_scale * intensity
    if rate > 0:
        out.append(Perturbation("corrupt", corruption="duplicate", rate=rate,
                                detail={"overwrite": True} if adv.overwrite else {}))
    if adv.totals_at is not None and intensity >= adv.totals_at:
        out.append(Perturbation("totals"))
    if adv.squeeze_after is not None and adv.squeeze and progress.successes == adv.squeeze_after:
        out.append(Perturbation("budget", budget_delta=-abs(adv.squeeze)))
    return tuple(out)


def test_shared_intents_equal_intents_made_fresh() -> None:
    adversaries = [EscalatingAdversary(), EscalatingAdversary(overwrite=True),
                   EscalatingAdversary(fault_status=500, totals_at=None),
                   EscalatingAdversary(squeeze_after=2, squeeze=3, corruption_scale=1),
                   EscalatingAdversary(fault_base=0.2, fault_scale=0.0, corruption_scale=0.0)]
    for i in range(400):
        adv = adversaries[i % len(adversaries)]
        intensity = (0.0, 0.2, 0.25, 0.5, 0.6, 0.7, 0.75, 0.8, 1.0, 1, 1 / 3)[i % 11]
        progress = p(i % 5)
        got = adv(progress, intensity, rng("shared", i))
        want = _intents_made_fresh(adv, progress, intensity, rng("shared", i).random())
        assert got == want
        assert [x.as_dict() for x in got] == [x.as_dict() for x in want]
        assert [type(x.rate) for x in got] == [type(x.rate) for x in want]


class _NoDraws:
    """A generator stand-in that fails the test if anything is drawn from it."""

    def random(self) -> float:
        raise AssertionError("drew from the step's generator")


def test_a_fault_probability_outside_0_1_decides_without_a_draw() -> None:
    # p <= 0 never fires and p >= 1 always does, whatever u in [0, 1): the same intents as
    # the rule with a drawn u (u = 0.0 and a u just below 1 are the extremes), and no draw.
    cases = [(EscalatingAdversary(), 0.0), (EscalatingAdversary(fault_base=-0.5), 0.6),
             (EscalatingAdversary(fault_base=1.0, fault_scale=0.0), 0.3),
             (EscalatingAdversary(fault_scale=2.0), 0.5), (EscalatingAdversary(fault_scale=2.0), 1)]
    no_draws = cast(np.random.Generator, _NoDraws())
    for adv, intensity in cases:
        for successes in range(4):
            got = adv(p(successes), intensity, no_draws)
            for u in (0.0, 0.5, 1.0 - 2.0 ** -53):
                assert got == _intents_made_fresh(adv, p(successes), intensity, u)
    assert EscalatingAdversary(fault_base=1.0)(p(0), 0.0, no_draws)[0].kind == "fault"
    assert EscalatingAdversary()(p(0), 0.0, no_draws) == ()

def _walk(env: ComtradeEnv) -> list[dict]:
    out, page = [], 1
    for _ in range(40):
        obs = env.tools["fetch_page"](page=page)
        out.append(obs)
        if "rows" in obs:
            if not obs["has_more"]:
                break
            page += 1
    return out


def test_same_seed_bit_identical_adversarial_sequence() -> None:
    a, b = ComtradeEnv("T9_adaptive_adversary", 4), ComtradeEnv("T9_adaptive_adversary", 4)
    assert _walk(a) == _walk(b)
    assert [t.as_dict() for t in a.trace] == [t.as_dict() for t in b.trace]
    c = ComtradeEnv("T9_adaptive_adversary", 5)
    _walk(c)
    assert [t.as_dict() for t in a.trace] != [t.as_dict() for t in c.trace]


def test_t9_seeded_escalates_with_progress() -> None:
    late_totals = late_faults = 0
    for seed in range(10):
        env = ComtradeEnv("T9_adaptive_adversary", seed)
        _walk(env)
        first = env.trace[0]
        assert first.intensity == 0.0 and first.perturbations == ()  # nothing at the start
        for entry in env.trace:
            kinds = {x.kind for x in entry.perturbations}
            if "totals" in kinds:
                assert entry.intensity >= 0.7
                late_totals += 1
            if "fault" in kinds:
                assert entry.intensity > 0
                late_faults += 1
    assert late_totals > 0 and late_faults > 0


def test_faults_cancel_successes() -> None:
    env = ComtradeEnv("T9_adaptive_adversary", 2)
    _walk(env)
    for before, after in zip(env.trace, env.trace[1:], strict=False):
        if not before.succeeded:
            assert after.intensity == before.intensity  # no progress, no escalation


def test_constant_arm_never_injects_totals() -> None:
    for seed in range(5):
        env = ComtradeEnv("T9_clean_ab", seed, condition="stress:constant")
        _walk(env)
        assert not any(x.kind == "totals" for t in env.trace for x in t.perturbations)


def test_dose_condition_validates() -> None:
    with pytest.raises(ValueError, match="dose"):
        adversary_for("stress:dose=2")
    sched, _ = adversary_for("stress:dose=0.25")
    assert sched(p(3)) == 0.25


def _intents(env: ComtradeEnv, pages: list[int]) -> list[dict[str, Any]]:
    """Fetch `pages` through a Recorder and return the adversary's recorded trace entries."""
    rec = Recorder(env, FakeClock())
    for page in pages:
        rec.call("agent", "fetch_page", {"page": page})
    return [e.result for e in rec.events if e.actor == "adversary"]


def test_intents_the_response_never_met_are_recorded_as_not_realised() -> None:
    # Budget 8 (5 pages + squeeze 3 + slack 0), squeezed by 3 after the 2nd success: the
    # 6th call on is refused ("Request limit exceeded"). The record said a 429, duplicates
    # and a totals row were injected into those refused calls, and duplicates into a 422.
    entries = _intents(ComtradeEnv("T9_clean_ab", 3, condition="stress:squeeze:slack=0"),
                       [1, 0, 1, 1, 1, 1, 1, 1, 1])
    by_step = {e["step"]: e for e in entries}
    dup_012 = {"kind": "corrupt", "corruption": "duplicate", "rate": 0.12}
    assert by_step[1]["perturbations"] == [] and by_step[1]["not_realised"] == [dup_012]
    assert by_step[3]["perturbations"][1] == {"kind": "budget", "budget_delta": -3}
    assert "not_realised" not in by_step[3]  # applied: served page, the budget cut
    assert by_step[4]["perturbations"] == [{"kind": "fault", "status": 429}]  # the last request
    for step in (5, 6, 7, 8):  # refused: the budget was spent
        assert by_step[step]["perturbations"] == [] and by_step[step]["not_realised"]
    assert by_step[5]["not_realised"] == [{"kind": "fault", "status": 429}]
    assert {p["kind"] for p in by_step[6]["not_realised"]} == {"corrupt", "totals"}


def test_a_totals_intent_on_a_page_past_the_end_is_not_realised() -> None:
    # A page past the last one is served empty: no totals row can be put in front of it.
    entries = _intents(ComtradeEnv("T9_clean_ab", 0, condition="stress:escalating"),
                       [1, 2, 3, 4, 9, 9, 9, 9])
    late = [e for e in entries if e["step"] >= 4 and e["succeeded"]]
    assert late and all({"kind": "totals"} not in e["perturbations"] for e in late)
    assert any({"kind": "totals"} in e.get("not_realised", []) for e in late)
