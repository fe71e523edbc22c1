"""The B2 slack dose response (examples/experiment_b2_dose.toml) in one report: delta per rule
and slack with its test, deaths and SKIPs per arm, the invariance check and the shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.experiment.dose import shape
from agentmetrology.experiment.plan import parse_plan
from agentmetrology.run.campaign import CampaignConfigError
from support.experiment_runs import run_and_report

PLAN = Path(__file__).resolve().parents[2] / "examples" / "experiment_b2_dose.toml"
RETRY, SKIP, AWARE = "l1:always-retry", "l1:always-skip", "l1:quota-aware"


@pytest.fixture(scope="module")
def dose(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    doc = run_and_report(PLAN, tmp_path_factory.mktemp("dose"))
    return dict(doc["dose"], _doc=doc)


def test_delta_per_rule_and_slack_with_its_test(dose: dict[str, Any]) -> None:
    got = {(r["target"], r["slack"]): (round(r["delta"], 4), [round(x, 3) for x in r["interval"]],
                                       round(r["sign_flip_p"], 4), round(r["p_holm"], 4),
                                       r["verdict"]) for r in dose["rows"]}
    # always-retry: the paper's +0.096 at slack 0 (ours +0.0907) and +0.015, p = .30 at slack 2
    # (ours +0.016, p = .27); the same rows as the single-slack plans, now one family of 8
    # (4 slacks x 2 scorers) per rule, so Holm leaves only slack 0 confirmed.
    retry = {0: (0.0907, [0.037, 0.145], 0.0052, 0.031, "confirmed"),
             1: (0.0547, [0.009, 0.103], 0.0471, 0.1882, "not confirmed"),
             2: (0.016, [-0.007, 0.04], 0.2664, 0.5329, "not confirmed"),
             4: (0.0027, [-0.017, 0.027], 0.881, 0.881, "not confirmed")}
    skip = (-0.1333, [-0.208, -0.055], 0.0042, 0.0293, "not confirmed")
    assert got == {**{(RETRY, k): v for k, v in retry.items()},
                   **{(AWARE, k): v for k, v in retry.items()},
                   **{(SKIP, k): skip for k in (0, 1, 2, 4)}}
    assert {r["family_size"] for r in dose["rows"]} == {8}


def test_deaths_and_skips_per_arm(dose: dict[str, Any]) -> None:
    got = {(r["target"], r["slack"]): (r["baseline"]["quota_deaths"], r["arm"]["quota_deaths"],
                                       r["baseline"]["skips"], r["arm"]["skips"])
           for r in dose["rows"]}
    # (escalating deaths, constant deaths, escalating SKIPs, constant SKIPs)
    assert got == {
        (RETRY, 0): (17, 5, 0, 0), (RETRY, 1): (12, 2, 0, 0), (RETRY, 2): (6, 1, 0, 0),
        (RETRY, 4): (3, 0, 0, 0),
        (SKIP, 0): (9, 0, 24, 40), (SKIP, 1): (3, 0, 27, 40), (SKIP, 2): (1, 0, 28, 40),
        (SKIP, 4): (1, 0, 30, 40),
        (AWARE, 0): (17, 2, 6, 6), (AWARE, 1): (12, 2, 6, 3), (AWARE, 2): (6, 0, 4, 1),
        (AWARE, 4): (3, 0, 3, 0)}
    cov = {(r["target"], r["slack"]): round(r["arm"]["coverage"], 4) for r in dose["rows"]}
    assert [cov[RETRY, k] for k in (0, 1, 2, 4)] == [0.778, 0.804, 0.8213, 0.83]


def test_zero_slack_invariance_and_the_shape(dose: dict[str, Any]) -> None:
    zero = next(x for x in dose["invariance"] if x["slack"] == 0)
    # Retry and quota-aware cannot be told apart; always-skip can: not every choice is forced.
    for side in ("baseline", "arm"):
        assert zero[side]["distinct_vectors"] == 2
        assert zero[side]["indistinguishable"] == [[RETRY, AWARE]]
    assert zero["forced"] is False
    sh = dose["shape"]["L1"]
    assert (sh["forced"], sh["binds"]) == ([False] * 4, [True, False, False, False])
    assert sh["delta_non_increasing"] == {RETRY: True, SKIP: True, AWARE: True}
    assert sh["inverted_u"] is False


def test_report_and_terminal_show_the_dose_table(tmp_path: Path) -> None:
    store, out = str(tmp_path / "s"), tmp_path / "o"
    assert CliRunner().invoke(app, ["experiment", "run", str(PLAN), "--store", store]
                              ).exit_code == 0
    r = CliRunner().invoke(app, ["experiment", "report", str(PLAN), "--store", store,
                                 "--out", str(out)], env={"COLUMNS": "160"})
    assert r.exit_code == 0, r.output
    assert "slack dose response" in r.output
    assert "+0.091 [0.037, 0.145]" in r.output and "17/5" in r.output
    assert "not an inverted U" in " ".join(r.output.split())
    md = (out / "report.md").read_text()
    assert "## Slack dose response" in md
    # the first screen names each slack's verdict, not the last slack's alone
    assert ("| `l1:always-retry` | L1 | coverage (ground truth) | confirmed at slack 0; "
            "not confirmed at slack 1, 2, 4 (n = 20 paired seeds each) | "
            "not confirmed (n = 20 paired seeds) |") in md
    assert "| `l1:always-retry` | L1 | 2 | +0.016 [-0.007, 0.040] | 0.266 | 0.533 |" in md
    assert "`l1:always-retry` +0.091, +0.055, +0.016, +0.003" in md
    assert "Slack dose response" in (out / "report.html").read_text()


def test_the_shape_predicate_finds_an_inverted_u() -> None:
    def row(k: int, verdict: str) -> dict[str, Any]:
        return {"target": "t", "level": "L1", "slack": k, "delta": 0.1 / (k + 1),
                "verdict": verdict}
    rows = [row(0, "confirmed"), row(1, "confirmed"), row(4, "not confirmed")]
    inv = [{"slack": 0, "forced": True}, {"slack": 1, "forced": False},
           {"slack": 4, "forced": False}]
    sh = shape(rows, inv)
    assert sh["inverted_u"] is True and sh["binding_and_free_between"] == [1]
    inv[1]["forced"] = True  # forced in the middle too: nothing left for decisions
    assert shape(rows, inv)["inverted_u"] is False


PLAN_HEAD = ("[experiment]\nname = 'd'\nhypothesis = 'h'\nkind = 'dose'\n"
             "targets = ['l1:always-retry']\nlevels = ['L1']\n")


@pytest.mark.parametrize(("extra", "message"), [
    ("slacks = [0]", "a dose plan needs at least 2 distinct slacks"),
    ("slacks = [0, 1.5]", "expected a list of integers in [0, 64]"),
    # within 0..64 but beyond the B2 arms' own 0..20: before, "'stress:b2:escalating' takes
    # no slack", which it does
    ("slacks = [0, 21]", "experiment.slacks: 'stress:b2:escalating' does not take slack 21: "
                         "bad condition 'stress:squeeze:slack=21': the slack must be an "
                         "integer in 0..20"),
    ("doses = [0, 1]", "a dose plan lists `slacks`, not `doses`"),
    ("arms = ['stress:b2:constant']", "a dose plan has 2 arms (baseline first), got 1"),
    ("arms = ['stress:constant', 'stress:escalating']", "'stress:constant' takes no slack"),
])
def test_bad_dose_plans_are_refused_with_one_line(extra: str, message: str) -> None:
    with pytest.raises(CampaignConfigError) as err:
        parse_plan(PLAN_HEAD + extra)
    assert message in " ".join(p.render("f") for p in err.value.problems)


def test_slacks_outside_a_dose_plan_are_refused() -> None:
    with pytest.raises(CampaignConfigError) as err:
        parse_plan(PLAN_HEAD.replace("'dose'", "'ab'") + "slacks = [0, 1]")
    assert "only a dose plan lists `slacks`" in err.value.problems[0].render("f")


def test_a_dose_plan_resolves_its_arms_and_rule() -> None:
    p = parse_plan(PLAN_HEAD)
    assert p.doses == (0, 1, 2, 4)
    assert p.arms[:2] == ("stress:b2:escalating:slack=0", "stress:b2:constant:slack=0")
    assert "at each slack" in p.doc()["decision_rule"]
