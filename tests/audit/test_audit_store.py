"""`agm audit ENV --store DIR`: the store's own targets, read and never rerun, in the audit.

The store, its audit and one `agm audit comtrade --store` run (the artifacts test and the
chromium test read the same --out) are built once per module; no test writes into them.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.audit.env_audit import audit_env, seal
from agentmetrology.audit.store_read import read_store
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.cli.main import app
from agentmetrology.envs.registry import get_env
from audit.store_fixtures import build_model_free_store, build_store

COMTRADE = get_env("comtrade")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("audit-store") / "store"
    build_store(path)
    return path


@pytest.fixture(scope="module")
def doc(store: Path) -> dict[str, Any]:
    return seal(audit_env(EnvTarget(COMTRADE, seeds=1), store=read_store(store, COMTRADE)))


def _nd(doc: dict[str, Any], level: str) -> dict[str, Any]:
    return dict(doc["stages"]["ownership"]["non_degeneracy"][level])


def _card_nd(doc: dict[str, Any], level: str) -> dict[str, Any]:
    (c,) = [c for c in doc["card"]["configurations"]
            if c["level"] == level and c["scorer"] == "shape_judge"]
    return dict(c["rows"]["non_degeneracy"])


def test_non_degeneracy_is_per_model_target(doc: dict) -> None:
    l1 = _nd(doc, "L1")
    models = {t["target"]: t for t in l1["model_targets"]}
    assert set(models) == {"retry-llm", "varied-llm"}
    (retry,) = models["retry-llm"]["decisions"]
    # 9 episodes of T4, T5 and T8 at seeds 0-2: 12 faults, every one answered RETRY
    assert retry["action_counts"] == {"1": 12} and retry["status"] == "fail"
    assert models["retry-llm"]["status"] == "fail" and models["retry-llm"]["episodes"] == 9
    (varied,) = models["varied-llm"]["decisions"]
    assert varied["action_counts"] == {"0": 2, "1": 10} and varied["action_varies"]
    assert varied["outcome_mean_by_action"] == {"0": 0.8, "1": 1.0}
    assert models["varied-llm"]["status"] == "pass"
    assert l1["status"] == "fail"  # one degenerate model target fails the row
    # the store's rule is a fixed rule beside the scripted ones: reported, never counted
    fixed = {(t["target"], t["source"]): t["status"] for t in l1["fixed_rules"]}
    assert fixed[("always-retry", "store")] == fixed[("l1:always-retry", "scripted")] == \
        "fixed rule"


def test_l2_card_cell_lists_each_model_target(doc: dict) -> None:
    cell = _card_nd(doc, "L2")
    # the careful fake model re-fetches every fault, keeps every page: constant actions
    assert cell["status"] == "fail"
    assert cell["evidence"] == {"llm-a": "fail", "llm-b": "fail", "fixed_rules": 10}


def test_l0_cell_counts_byte_identical_model_payload_pairs(doc: dict) -> None:
    joint = doc["stages"]["store"]["joint"]
    assert joint["l0_model_targets"] == ["llm-a", "llm-b", "llm-short"]
    # 9 (task, seed) units x 3 pairs; llm-a and llm-b identical on all 9, llm-short on none
    assert joint["l0_model_payload_pairs"] == 27
    assert joint["l0_model_identical_pairs"] == 9
    assert joint["l0_model_identical_pairs_by_field"]["data_jsonl"] == 9
    cell = _card_nd(doc, "L0")
    assert cell["status"] == "not probed"
    assert (cell["evidence"]["model_payload_pairs"], cell["evidence"]["byte_identical_pairs"]) \
        == (27, 9)


def test_l0_all_identical_model_payloads_fail(store: Path) -> None:
    recorded = read_store(store, COMTRADE, campaigns=["aud"])
    doc = audit_env(EnvTarget(COMTRADE, seeds=1), store=recorded)
    cell = _card_nd(doc, "L0")
    assert cell["status"] == "fail"
    assert (cell["evidence"]["model_payload_pairs"], cell["evidence"]["byte_identical_pairs"]) \
        == (9, 9)


def test_store_2x2_and_spectrum_use_recorded_episodes(doc: dict) -> None:
    joint = doc["stages"]["store"]["joint"]
    assert [(t["target"], t["units"]) for t in joint["targets"]] == [
        ("careful", 9), ("llm-a", 9), ("llm-b", 9)]
    cells = joint["cells"]
    assert cells["L2|ground_truth"]["target_means"] == {"careful": 1.0, "llm-a": 1.0,
                                                        "llm-b": 1.0}
    assert cells["L0|shipped"]["spread"] == 0.0
    rows = {(r["target"], r["source"]): r for r in doc["stages"]["reliability"]["rows"]}
    assert rows[("llm-a", "store")]["n"] == 9 and rows[("scripted:careful", "scripted")]["n"] \
        == 50
    assert ("broken-llm", "store") not in rows  # no usable episode: no row, never a 0


def test_measurement_failures_are_excluded_and_counted(doc: dict) -> None:
    targets = {t["target"]: t for t in doc["card"]["store"]["targets"]}
    assert targets["broken-llm"]["episodes"] == 0
    assert targets["broken-llm"]["excluded"] == {"measurement failure": 2}
    assert targets["retry-llm"]["episodes"] == 9 and targets["retry-llm"]["kind"] == "llm"
    assert targets["always-retry"]["model_target"] is False
    assert doc["card"]["store"]["excluded"] == 2
    assert doc["card"]["store"]["campaigns"] == ["aud", "broken", "short"]


def test_a_null_ground_truth_score_is_excluded_not_a_zero(store: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(store, copy)
    conn = sqlite3.connect(copy / "ledger.sqlite")
    with conn:
        conn.execute(
            "UPDATE assessments SET score = NULL WHERE scorer = 'ground_truth_f1' AND "
            "administration = (SELECT id FROM administrations WHERE target = 'llm-a' AND "
            "level = 'L2' AND task = 'T8_mixed_faults' AND seed = 0)")
    conn.close()
    recorded = read_store(copy, COMTRADE, campaigns=["aud"])
    (a,) = [t for t in recorded.targets if t.target == "llm-a"]
    assert len(a.at("L2")) == 8 and dict(a.excluded) == {"no ground-truth score": 1}


def test_model_free_store_leaves_non_degeneracy_not_probed(tmp_path: Path) -> None:
    build_model_free_store(tmp_path / "mf")
    doc = audit_env(EnvTarget(COMTRADE, seeds=1), store=read_store(tmp_path / "mf", COMTRADE))
    for level in ("L0", "L2"):
        cell = _card_nd(doc, level)
        assert cell["status"] == "not probed" and cell["evidence"]["reason"] == \
            "no model targets"
    l1 = _nd(doc, "L1")
    assert (l1["status"], l1["reason"]) == ("not probed", "no model targets")
    assert ("always-retry", "store") in {(t["target"], t["source"]) for t in l1["fixed_rules"]}


@pytest.fixture(scope="module")
def cli_audit(store: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    """`agm audit comtrade --store` once: its result and --out (two tests read them)."""
    out = tmp_path_factory.mktemp("cli-audit") / "out"
    res = CliRunner().invoke(app, ["audit", "comtrade", "--store", str(store), "--seeds", "0-0",
                                   "--out", str(out)], env={"COLUMNS": "200"})
    return res, out


def test_cli_store_audit_writes_every_artifact(cli_audit: tuple[Any, Path]) -> None:
    res, out = cli_audit
    assert res.exit_code == 0, res.output
    assert "Store targets" in res.stdout
    for name in ("retry-llm", "varied-llm", "llm-a", "broken-llm"):
        assert name in res.stdout
    assert "measurement failure: 2" in res.stdout
    assert "9 of 27 model-target payload pairs byte-identical: not probed" in res.stdout
    audit = json.loads((out / "audit.json").read_text())
    card = json.loads((out / "card.json").read_text())
    assert [t["target"] for t in card["store"]["targets"]] == [
        "always-retry", "careful", "llm-a", "llm-b", "retry-llm", "varied-llm", "broken-llm",
        "llm-short"]
    assert audit["digests"]["stages.store"] and audit["card"]["store"] == card["store"]
    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    for text in (md, html):
        assert "Store targets" in text and "retry-llm" in text
        assert "measurement failure: 2" in text
        assert "Joint intervention (2x2) of the store targets" in text
    assert "9 of 27 pairs of model-target payloads are byte-identical" in md


def test_cli_store_report_renders_in_headless_chromium(cli_audit: tuple[Any, Path],
                                                       tmp_path: Path) -> None:
    from report.test_audit_report import _console_errors, _open

    res, out = cli_audit  # the report of the audit above; --json prints, it writes the same
    assert res.exit_code == 0, res.output
    dom, stderr = _open(out / "report.html", tmp_path)
    assert "Store targets" in dom and "varied-llm" in dom and "<svg" in dom
    assert _console_errors(stderr) == []


def _bad(*args: str) -> str:
    res = CliRunner().invoke(app, ["audit", "comtrade", *args])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    return lines[0]


def test_cli_store_bad_input_exits_2(tmp_path: Path) -> None:
    (tmp_path / "notastore").mkdir()
    (tmp_path / "notastore" / "x.txt").write_text("x")
    assert "is not an evidence store" in _bad("--store", str(tmp_path / "notastore"))
    assert "is not an evidence store" in _bad("--store", str(tmp_path / "missing"))
    (tmp_path / "file").write_text("x")
    assert "is not an evidence store" in _bad("--store", str(tmp_path / "file"))
    build_model_free_store(tmp_path / "ro", "researchops")
    line = _bad("--store", str(tmp_path / "ro"))
    assert "holds no recorded episodes of comtrade" in line and "2 of researchops" in line
    assert "unknown level 'L3' (comtrade has L0, L1, L2)" in _bad(
        "--store", str(tmp_path / "ro"), "--level", "L3")
    assert "no campaign 'nope'" in _bad("--store", str(tmp_path / "ro"), "--campaign", "nope")
    assert "give --store DIR" in _bad("--level", "L1")


def test_user_scorer_rescoring_stored_submissions_never_reruns(store: Path,
                                                               tmp_path: Path) -> None:
    scorer = tmp_path / "half.py"
    scorer.write_text("def score(task_id, seed, submission):\n"
                      "    return 0.25 if 'complete=true' in submission['run_log'] else 0.75\n")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["audit", "comtrade", "--store", str(store), "--seeds", "0-0",
                                   "--campaign", "aud", "--scorer", f"{scorer}:score",
                                   "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    cells = json.loads((out / "audit.json").read_text())["stages"]["store"]["joint"]["cells"]
    # the stored shape-judge scores are replaced by the user's scorer on the stored submissions
    assert cells["L0|shipped"]["target_means"] == {"careful": 0.25, "llm-a": 0.25,
                                                   "llm-b": 0.25}
    assert cells["L2|ground_truth"]["target_means"]["llm-a"] == 1.0


def test_a_degenerate_model_decision_licenses_no_capability_claim(doc: dict) -> None:
    # Before, L2 + ground truth licensed "model capability" beside a non-degeneracy `fail`
    # (the careful fake models take one action at every fault): the ownership audit is
    # completeness and non-degeneracy, so a failed one licenses system performance only.
    (c,) = [c for c in doc["card"]["configurations"]
            if c["level"] == "L2" and c["scorer"] != "shape_judge"]
    rows = c["rows"]
    assert rows["ownership_completeness"]["status"] == "pass"
    assert rows["non_degeneracy"]["status"] == "fail"
    assert c["licensed_claim"] == "model–scaffold system performance"
    assert c["claim_basis"]["rests_on"]["non_degeneracy"] == "fail"
