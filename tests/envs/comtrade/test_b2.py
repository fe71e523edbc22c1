"""The B2 design (docs/comtrade.md): both arms of the matched-mean A/B under one quota."""

from statistics import fmean

import pytest

from agentmetrology.experiment.arms import episode_counts
from agentmetrology.run.episode import canonical_condition, make_env, run_one
from agentmetrology.stats import paired_bootstrap, sign_flip_test
from support.comtrade_runs import COMTRADE

TASK = "T9_clean_ab"
# (rule, slack): constant coverage, escalating coverage, delta = constant - escalating, its
# paired bootstrap 95% CI, the sign-flip p, quota deaths (constant, escalating) and SKIPs
# (constant, escalating) over seeds 0..19; every value rounded to 4 places.
B2 = {
    ("l1:always-retry", 0): (0.778, 0.6873, 0.0907, (0.0373, 0.1447), 0.0052, (5, 17), (0, 0)),
    ("l1:always-retry", 1): (0.804, 0.7493, 0.0547, (0.0087, 0.1033), 0.0471, (2, 12), (0, 0)),
    ("l1:always-retry", 2): (0.8213, 0.8053, 0.016, (-0.0073, 0.04), 0.2664, (1, 6), (0, 0)),
    ("l1:always-retry", 4): (0.83, 0.8273, 0.0027, (-0.0173, 0.0273), 0.881, (0, 3), (0, 0)),
    ("l1:always-skip", 0): (0.546, 0.6793, -0.1333, (-0.208, -0.0547), 0.0042, (0, 9), (40, 24)),
    ("l1:always-skip", 1): (0.546, 0.6793, -0.1333, (-0.208, -0.0547), 0.0042, (0, 3), (40, 27)),
    ("l1:always-skip", 2): (0.546, 0.6793, -0.1333, (-0.208, -0.0547), 0.0042, (0, 1), (40, 28)),
    ("l1:always-skip", 4): (0.546, 0.6793, -0.1333, (-0.208, -0.0547), 0.0042, (0, 1), (40, 30)),
    ("l1:quota-aware", 0): (0.778, 0.6873, 0.0907, (0.0373, 0.1447), 0.0052, (2, 17), (6, 6)),
    ("l1:quota-aware", 1): (0.804, 0.7493, 0.0547, (0.0087, 0.1033), 0.0471, (2, 12), (3, 6)),
    ("l1:quota-aware", 2): (0.8213, 0.8053, 0.016, (-0.0073, 0.04), 0.2664, (0, 6), (1, 4)),
    ("l1:quota-aware", 4): (0.83, 0.8273, 0.0027, (-0.0173, 0.0273), 0.881, (0, 3), (0, 3)),
}
# (rule, dose): mean and worst coverage over seeds 0..9 and quota deaths, budget 8, no squeeze.
CURVE = {
    ("l1:always-retry", "0"): (1.0, 1.0, 0), ("l1:always-retry", "0.25"): (0.9147, 0.7467, 1),
    ("l1:always-retry", "0.5"): (0.8, 0.4933, 1), ("l1:always-retry", "0.75"): (0.6933, 0.3333, 3),
    ("l1:always-retry", "1"): (0.6173, 0.4133, 5),
    ("l1:always-skip", "0"): (1.0, 1.0, 0), ("l1:always-skip", "0.25"): (0.84, 0.3733, 0),
    ("l1:always-skip", "0.5"): (0.64, 0.3333, 0), ("l1:always-skip", "0.75"): (0.512, 0.0, 0),
    ("l1:always-skip", "1"): (0.456, 0.1467, 0),
}


def _arm(rule: str, condition: str, seeds: int) -> tuple[list[float], int, int]:
    covs, deaths, skips = [], 0, 0
    for s in range(seeds):
        r = run_one(COMTRADE, TASK, s, rule, "L1", condition=condition)
        covs.append(r.assessment("ground_truth").components["recall"])
        c = episode_counts({"events": [{"kind": e.kind, "result": e.result}
                                       for e in r.episode.events]})
        deaths, skips = deaths + int(c["quota_death"]), skips + c["skips"]
    return covs, deaths, skips


def _squeezes(condition: str) -> list[tuple[int, int]]:
    ep = run_one(COMTRADE, TASK, 0, "l1:always-retry", "L1", condition=condition).episode
    return [(e.result["successes"], p["budget_delta"]) for e in ep.events
            if e.kind == "perturbation" for p in e.result["perturbations"]
            if p.get("budget_delta")]


def test_spelling_and_refusals() -> None:
    assert canonical_condition(COMTRADE, "stress:b2:constant:slack=02") == \
        "stress:b2:constant:slack=2"
    assert canonical_condition(COMTRADE, "stress:quota:dose=0.50") == "stress:quota:dose=0.5"
    for bad in ("stress:b2:linear:slack=0", "stress:b2:constant", "stress:b2:constant:slack=x"):
        with pytest.raises(ValueError, match="bad condition"):
            canonical_condition(COMTRADE, bad)


@pytest.mark.parametrize("slack", [0, 2])
def test_both_arms_get_the_quota_and_only_escalating_is_squeezed(slack: int) -> None:
    for arm in ("escalating", "constant"):
        env = make_env(COMTRADE, TASK, 0, "seeded", f"stress:b2:{arm}:slack={slack}")
        assert env.service.budget == 8 + slack  # type: ignore[attr-defined]
    # The squeeze fires once, on the fetch after the 3rd success (intensity 0.75 >= 0.70),
    # which succeeds here: the trace counts successes after its step.
    assert _squeezes(f"stress:b2:escalating:slack={slack}") == [(4, -3)]
    assert _squeezes(f"stress:b2:constant:slack={slack}") == []


def test_the_constant_arms_ceiling_is_rows_lost_to_overwriting_duplicates() -> None:
    # With slack to spare no quota binds: what is missing was overwritten by duplicates.
    covs, deaths, _ = _arm("l1:always-retry", "stress:b2:constant:slack=20", 20)
    assert (round(fmean(covs), 4), deaths) == (0.83, 0)


@pytest.mark.parametrize("key", sorted(B2))
def test_b2_calibration_is_pinned(key: tuple[str, int]) -> None:
    rule, slack = key
    con, c_deaths, c_skips = _arm(rule, f"stress:b2:constant:slack={slack}", 20)
    esc, e_deaths, e_skips = _arm(rule, f"stress:b2:escalating:slack={slack}", 20)
    est = paired_bootstrap(esc, con, seed=0)
    got = (round(fmean(con), 4), round(fmean(esc), 4), round(est.value, 4),
           tuple(round(x, 4) for x in est.interval),
           round(sign_flip_test(esc, con, seed=0).p_value, 4), (c_deaths, e_deaths),
           (c_skips, e_skips))
    assert got == B2[key]


def test_quota_dose_curve_is_pinned_and_gapless_at_dose_zero() -> None:
    for (rule, dose), want in CURVE.items():
        covs, deaths, _ = _arm(rule, f"stress:quota:dose={dose}", 10)
        assert (round(fmean(covs), 4), round(min(covs), 4), deaths) == want
    # quota-aware equals always-retry's coverage but dies less often at the highest dose
    covs, deaths, _ = _arm("l1:quota-aware", "stress:quota:dose=1", 10)
    assert (round(fmean(covs), 4), deaths) == (0.6173, 1)


@pytest.mark.parametrize("slack", [0, 1, 2, 4])
def test_retry_and_quota_aware_are_indistinguishable_in_outcome(slack: int) -> None:
    for arm in ("escalating", "constant"):
        cond = f"stress:b2:{arm}:slack={slack}"
        assert _arm("l1:always-retry", cond, 20)[0] == _arm("l1:quota-aware", cond, 20)[0]
