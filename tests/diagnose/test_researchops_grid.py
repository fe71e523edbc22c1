"""The full ResearchOpsEnv grid (docs/diagnose.md): 1,575 records, reproduced byte for byte, and
the pattern the suite exists to show."""

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.run.campaign import load_campaign, plan_campaign

GRID = Path(__file__).resolve().parents[2] / "examples" / "researchops_grid.toml"


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


def test_the_grid_has_1575_records_and_reproduces_them_exactly(grid: tuple[Path, dict]) -> None:
    root, _ = grid
    assert len(plan_campaign(load_campaign(GRID)).administrations) == 1575
    a, b = _digests(root / "a"), _digests(root / "b")
    assert len(a) == 1575 and a == b


def test_careful_under_alias_is_evaluator_sensitivity(grid: tuple[Path, dict]) -> None:
    g = grid[1]["groups"]["researchops|careful|L2|alias"]
    assert g["vrg"]["value"] > 0.2 and g["vrg"]["interval"][0] > 0
    assert g["rescored_gap"]["value"] == 0.0  # rescoring closes it exactly
    assert g["behaviour_changed"] == 0.0 and g["reading"] == "evaluator sensitivity"


def test_overfit_under_alias_is_a_behavioural_failure(grid: tuple[Path, dict]) -> None:
    g = grid[1]["groups"]["researchops|overfit|L2|alias"]
    assert g["rescored_gap"]["value"] == g["vrg"]["value"] > 0.2  # rescoring cannot help
    assert g["reading"] == "behavioural failure"


def test_shortcut_fails_regardless_and_the_report_says_so(grid: tuple[Path, dict]) -> None:
    root, doc = grid
    g = doc["groups"]["researchops|shortcut|L2|alias"]
    assert g["msr"] == 0.0 and g["msr_original"] == 0.0 and g["mtr"] is None
    assert abs(g["vrg"]["value"]) < 0.05 and g["reading"] == "fails regardless"
    assert doc["gap_only_ranking"]["order"][0] == "researchops|shortcut|L2"
    assert "most robust" in doc["gap_only_ranking"]["warning"]
    assert "fails in every condition" in (root / "out" / "report.md").read_text()
    ptd = doc["groups"]["researchops|shortcut|L2|repeat"]["ptd"]
    assert ptd is not None and ptd > 0  # the proxy inflates what the truth denies


def test_controls(grid: tuple[Path, dict]) -> None:
    doc = grid[1]
    assert doc["positive_control"]["status"] == "detected"
    for policy in ("careful", "overfit", "shortcut"):
        rep = doc["groups"][f"researchops|{policy}|L2|repeat"]
        assert rep["vrg"]["value"] == 0.0 and rep["behaviour_changed"] == 0.0
    rubric = doc["groups"]["researchops|overfit|L2|rubric"]
    assert rubric["vrg"]["value"] != 0.0 and rubric["rescored_gap"]["value"] == 0.0
