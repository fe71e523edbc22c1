"""The full ResearchOpsEnv grid (docs/diagnose.md): 1,575 records, reproduced byte for byte, and
the pattern the suite exists to show."""

import json
import re
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.diagnose.pairs import collect_pairs
from agentmetrology.diagnose.run import check_tau
from agentmetrology.diagnose.study import PAPER_CAREFUL_MSR_INTERVAL, table2
from agentmetrology.records.errors import UserError
from agentmetrology.run.campaign import load_campaign, plan_campaign
from agentmetrology.store import EvidenceStore

GRID = Path(__file__).resolve().parents[2] / "examples" / "researchops_grid.toml"
CONTROLS = GRID.with_name("researchops_controls.toml")
PAPER_FAMILIES = ["wording", "alias", "rubric", "constraint", "proxy_incentive",
                  "observation_access"]  # the TRACE paper's Table 1, in its order


def _digests(store: Path) -> dict[tuple[str, ...], str]:
    with sqlite3.connect(store / "ledger.sqlite") as conn:
        rows = conn.execute(
            "SELECT a.target, a.task, a.seed, a.condition, e.episode_digest FROM episodes e "
            "JOIN administrations a ON a.id = e.administration").fetchall()
    return {tuple(map(str, r[:4])): r[4] for r in rows}


@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("grid")
    for name in ("a", "b"):
        res = CliRunner().invoke(app, ["campaign", "run", str(GRID), "--store",
                                       str(root / name), "--quiet"])
        assert res.exit_code == 0, res.stderr
    res = CliRunner().invoke(app, ["diagnose", str(root / "a"), "--out", str(root / "out")])
    assert res.exit_code == 0, res.stderr
    return root, json.loads((root / "out" / "diagnose.json").read_text())


@pytest.fixture(scope="module")
def controls(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("controls")
    res = CliRunner().invoke(app, ["campaign", "run", str(CONTROLS), "--store",
                                   str(root / "c"), "--quiet"])
    assert res.exit_code == 0, res.stderr
    res = CliRunner().invoke(app, ["diagnose", str(root / "c"), "--out", str(root / "out")])
    assert res.exit_code == 0, res.stderr
    return root, json.loads((root / "out" / "diagnose.json").read_text())


def test_the_grid_has_1575_records_and_reproduces_them_exactly(grid: tuple[Path, dict]) -> None:
    root, _ = grid
    plan = plan_campaign(load_campaign(GRID))
    assert len(plan.administrations) == 1575
    conditions = sorted({a.key.condition for a in plan.administrations})
    assert conditions == sorted(["clean"] + [f"mut:{m}" for m in PAPER_FAMILIES])
    assert {(a.key.target, a.key.condition) for a in plan.administrations} == {
        (t, c) for t in ("careful", "overfit", "shortcut") for c in conditions}
    a, b = _digests(root / "a"), _digests(root / "b")
    assert len(a) == 1575 and a == b


def test_careful_under_alias_is_evaluator_sensitivity(grid: tuple[Path, dict]) -> None:
    g = grid[1]["groups"]["researchops|careful|L2|alias"]
    assert g["vrg"]["value"] > 0.2 and g["vrg"]["interval"][0] > 0
    assert g["rescored_gap"]["value"] == 0.0  # rescoring closes it exactly
    assert g["behaviour_changed"] == 0.0 and g["reading"] == "evaluator sensitivity"
    assert g["predicates"]["rescoring_closes"] is True


def test_overfit_under_alias_is_a_behavioural_failure(grid: tuple[Path, dict]) -> None:
    g = grid[1]["groups"]["researchops|overfit|L2|alias"]
    # rescoring cannot help: 0.134 (the paper's 0.130, docs/diagnose.md)
    assert g["rescored_gap"]["value"] == g["vrg"]["value"] == pytest.approx(0.134)
    assert g["reading"] == "behavioural failure"


def test_shortcut_fails_regardless_and_the_report_says_so(grid: tuple[Path, dict]) -> None:
    root, doc = grid
    g = doc["groups"]["researchops|shortcut|L2|alias"]
    assert g["msr"] == 0.0 and g["msr_original"] == 0.0 and g["mtr"] is None
    assert abs(g["vrg"]["value"]) < 0.05 and g["reading"] == "fails regardless"
    assert doc["gap_only_ranking"]["order"][0] == "researchops|shortcut|L2"
    assert "most robust" in doc["gap_only_ranking"]["warning"]
    assert "fails in every condition" in (root / "out" / "report.md").read_text()
    ptd = doc["groups"]["researchops|shortcut|L2|proxy_incentive"]["ptd"]
    assert ptd is not None and ptd > 0  # the proxy inflates what the truth denies


def test_the_controls_are_their_own_grid(controls: tuple[Path, dict]) -> None:
    doc = controls[1]
    assert len(plan_campaign(load_campaign(CONTROLS)).administrations) == 25 * 5 * 3 * 3
    assert doc["positive_control"]["status"] == "detected"
    for policy in ("careful", "overfit", "shortcut"):
        rep = doc["groups"][f"researchops|{policy}|L2|repeat"]
        assert rep["vrg"]["value"] == 0.0 and rep["behaviour_changed"] == 0.0


def test_a_mutation_without_an_inverse_map_has_no_rescored_gap(grid: tuple[Path, dict]) -> None:
    # Found: wording, constraint, proxy_incentive and observation_access were "rescored" as
    # recorded, so the rescored column repeated the gap (overfit under constraint: 0.042 and
    # 0.042) and rescoring_closes was true/false where the docs say n/a without an inverse map.
    root, doc = grid
    for key, g in doc["groups"].items():
        inverse = key.split("|")[3] in ("alias", "rubric")
        assert (g["rescored_gap"] is not None) is inverse, key
        assert (g["predicates"]["rescoring_closes"] is not None) is inverse, key
    assert "| `overfit` | `constraint` | 75 | 0.042 [0.021, 0.063] | n/a | 0.000 |" in (
        root / "out" / "report.md").read_text()


def test_rubric_is_an_evaluator_change(grid: tuple[Path, dict]) -> None:
    doc = grid[1]
    rubric = doc["groups"]["researchops|overfit|L2|rubric"]
    assert rubric["vrg"]["value"] != 0.0 and rubric["rescored_gap"]["value"] == 0.0
    # a rubric change is a change of the evaluator by construction: labelled, not diagnosed
    assert rubric["reading"] == "evaluator change (by construction)"


def test_no_reading_contradicts_the_numbers_printed_beside_it(grid: tuple[Path, dict]) -> None:
    root, doc = grid
    for key, g in doc["groups"].items():
        p, holm = g["predicates"], g["paired"].get("holm", {})
        assert g["verdict"]["n"] == g["tasks"] == 25 and str(g["tasks"]) in g["verdict"]["text"]
        assert p["behaviour_changed"] == (g["behaviour_changed"] > 0)
        assert p["fails_both"] == (g["msr"] == 0 and g["msr_original"] == 0)
        if g["mutation"] in ("repeat", "rubric"):
            assert not holm  # controls and evaluator changes are not in the Holm family
            assert g["reading"] == ("repeat control" if g["mutation"] == "repeat"
                                    else "evaluator change (by construction)")
            continue
        assert holm["family_size"] == doc["holm"]["size"] == 15  # 3 policies x 5 families
        assert p["different"] == (holm["difference"] < 0.05)
        assert p["equivalent"] == (holm["equivalence"] < 0.05)
        if g["reading"] == "behavioural failure":
            assert g["behaviour_changed"] > 0 and not p["equivalent"], key
        if g["reading"].startswith("robust"):
            assert p["equivalent"] and not p["fails_both"], key
        if g["reading"] == "evaluator sensitivity":
            assert g["behaviour_changed"] == 0 and p["rescoring_closes"], key
    report = (root / "out" / "report.md").read_text()
    assert "Why each reading: its predicates" in report
    assert "Holm-adjusted over one family" in report


def test_the_threshold_sweep_is_in_the_json_and_the_report(grid: tuple[Path, dict]) -> None:
    root, doc = grid
    assert doc["tau"] == 0.65 and doc["thresholds"]["sweep"] == [0.5, 0.65, 0.8]
    g = doc["groups"]["researchops|overfit|L2|alias"]
    assert set(g["sweep"]) == {"0.5", "0.65", "0.8"}
    assert [g["sweep"][t]["reading"] for t in ("0.5", "0.65", "0.8")] == \
        ["behavioural failure", "behavioural failure", "fails regardless"]
    assert doc["thresholds"]["unstable"] == [k for k, x in doc["groups"].items()
                                             if x["stability"] == "unstable across thresholds"]
    assert "Readings across pass thresholds" in (root / "out" / "report.md").read_text()


def test_overfit_under_constraint_is_not_read_as_a_behavioural_failure(tmp_path: Path) -> None:
    # It was: the gap's interval excluded 0 while nothing in the operations changed and the
    # equivalence label said "equivalent". A real gap inside the margin is read as robust.
    text = GRID.read_text().replace('seeds = "0-2"', 'seeds = "0"')
    (tmp_path / "c.toml").write_text(re.sub(r"mutations = \[.*\]", 'mutations = ["constraint"]',
                                            text))
    res = CliRunner().invoke(app, ["campaign", "run", str(tmp_path / "c.toml"), "--store",
                                   str(tmp_path / "s"), "--quiet"])
    assert res.exit_code == 0, res.stderr
    res = CliRunner().invoke(app, ["diagnose", str(tmp_path / "s"), "--out",
                                   str(tmp_path / "o"), "--json"])
    assert res.exit_code == 0, res.stderr
    g = json.loads(res.stdout)["groups"]["researchops|overfit|L2|constraint"]
    assert g["behaviour_changed"] == 0.0 and g["vrg"]["value"] > 0
    assert g["paired"]["equivalence"]["label"] == "equivalent"
    assert g["predicates"]["behaviour_changed"] is False
    # ... but not as robust either: every passing original fails under the constraint (MTR 0;
    # it read "robust" beside MTR 0.000). Its small gap sits at the pass threshold.
    assert (g["msr_original"], g["msr"], g["mtr"]) == (0.08, 0.0, 0.0)
    assert g["predicates"]["loses_passes"] is True
    assert g["reading"] == "small gap, passes lost"


def test_tau_is_an_option_and_is_checked(grid: tuple[Path, dict], tmp_path: Path) -> None:
    root, _ = grid
    res = CliRunner().invoke(app, ["diagnose", str(root / "a"), "--out", str(tmp_path),
                                   "--tau", "0.5", "--json"])
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["tau"] == 0.5
    res = CliRunner().invoke(app, ["diagnose", str(root / "a"), "--out", str(tmp_path / "no"),
                                   "--tau", "65"])
    assert res.exit_code != 0 and not (tmp_path / "no").exists()
    for bad in (65.0, 0.0, -0.5):  # a UserError: the CLI's one handler prints it, exit 2
        with pytest.raises(UserError, match="0 < tau <= 1"):
            check_tau(bad)


def test_table2_pools_450_pairs_per_policy_beside_the_papers(grid: tuple[Path, dict]) -> None:
    with EvidenceStore.open(grid[0] / "a") as store:
        pairs, _ = collect_pairs(store)
    t = table2(pairs, tau=0.65)
    assert [r["ours"]["pairs"] for r in t.values()] == [450, 450, 450]
    shortcut, paper = t["shortcut"]["ours"], t["shortcut"]["paper"]
    assert paper is not None and shortcut["mtr"] is None and paper["mtr"] is None  # undefined
    # calibrated (docs/diagnose.md): every number of every row within ±0.02 of the paper's
    for policy, row in t.items():
        for k in ("original", "mutated", "gap", "msr", "mtr", "ptd"):
            if row["paper"][k] is not None:
                assert abs(row["ours"][k] - row["paper"][k]) <= 0.02, (policy, k)
    careful = t["careful"]["ours"]
    assert careful == {"pairs": 450, "excluded": 0, "original": 0.807, "mutated": 0.765,
                       "gap": 0.042, "msr": 0.867, "msr_interval": [0.847, 0.893],
                       "passing_originals": 450, "mtr": 0.867, "ptd": -0.165}
    # the paper's task-cluster interval (1,000 resamples, seed 17), each end within ±0.02
    for ours, theirs in zip(careful["msr_interval"], PAPER_CAREFUL_MSR_INTERVAL, strict=True):
        assert abs(ours - theirs) <= 0.02
    assert shortcut == {"pairs": 450, "excluded": 0, "original": 0.347, "mutated": 0.33,
                        "gap": 0.017, "msr": 0.0, "msr_interval": [0.0, 0.0],
                        "passing_originals": 0, "mtr": None, "ptd": 0.932}
    # overfit passes two tasks (lr_2, seed_2) x 3 seeds x 6 families: the paper's 36 originals
    overfit = t["overfit"]["ours"]
    assert overfit == {"pairs": 450, "excluded": 0, "original": 0.554, "mutated": 0.518,
                       "gap": 0.036, "msr": 0.053, "msr_interval": overfit["msr_interval"],
                       "passing_originals": 36, "mtr": 0.667, "ptd": 0.929}
