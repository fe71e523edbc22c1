"""The comtrade audit end to end: the card's verdicts, the 2x2, the spectrum, the override.

The determinism test is the only one that starts a process: a fresh interpreter with its own
hash seed runs the five-seed audit again, and its bytes must equal this process's (a
same-process rerun cannot see an order that depends on string hashing).
"""

import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest

import agentmetrology
from agentmetrology.audit.env_audit import audit_env, seal
from agentmetrology.audit.scorer_override import ScorerLoadError, load_scorer
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.envs.registry import get_env
from agentmetrology.records.canonical import canonical_json

ComtradeTarget = partial(EnvTarget, get_env("comtrade"))
SRC = str(Path(agentmetrology.__file__).resolve().parents[1])  # the fresh process imports this


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return seal(audit_env(ComtradeTarget(seeds=5)))


def _config(doc: dict[str, Any], level: str, scorer: str) -> dict[str, Any]:
    (c,) = [c for c in doc["card"]["configurations"]
            if c["level"] == level and c["scorer"] == scorer]
    return c


def test_shipped_judge_fails_criterion_with_fabricated_equal_to_correct(doc: dict) -> None:
    probes = doc["stages"]["probes"]
    assert probes["shipped"]["status"] == "fail"
    by = {p["probe"]: p for p in probes["shipped"]["by_probe"]}
    truth = {p["probe"]: p for p in probes["ground_truth"]["by_probe"]}
    assert by["fabricated"]["score_mean"] == by["correct"]["score_mean"]
    assert truth["fabricated"]["score_mean"] == 0.0 and truth["correct"]["score_mean"] == 1.0
    assert any(o["probe"] == "fabricated" and o["relation"] == "tie"
               for o in probes["shipped"]["offending"])
    # the judge floors an empty submission far above zero: its lowest total over the ten
    # tasks x five seeds is 49.8 of 100 (metadata, schema and log points need no rows)
    assert by["empty"]["score_min"] == 49.8
    assert probes["ground_truth"]["status"] == "pass"


def test_licensed_claims(doc: dict) -> None:
    assert doc["card"]["licensed_claim"] == "self-report compliance"
    assert _config(doc, "L0", "shape_judge")["licensed_claim"] == "self-report compliance"
    assert _config(doc, "L2", "ground_truth_f1_exact")["licensed_claim"] == "model capability"
    assert _config(doc, "L0", "ground_truth_f1_exact")["licensed_claim"] == \
        "model–scaffold system performance"
    gt = _config(doc, "L2", "ground_truth_f1_exact")["rows"]
    # Without model targets nothing probes whether a model's decision varies: the scripted
    # profiles are fixed rules, and their differences are not a decision channel.
    assert {k: v["status"] for k, v in gt.items()} == {
        "scorer_kind": "outcome", "criterion_sensitivity": "pass",
        "ownership_completeness": "pass", "non_degeneracy": "not probed", "replay": "pass"}
    assert gt["non_degeneracy"]["evidence"]["reason"] == "no model targets"
    assert all(v["source_digest"] for k, v in gt.items() if k != "scorer_kind")
    l0 = _config(doc, "L0", "shape_judge")["rows"]["non_degeneracy"]
    assert l0["status"] == "not probed" and l0["evidence"]["reason"] == "no model targets"
    # each claim says what it rests on; capability, licensed without non-degeneracy (the
    # lattice does not require it), names it as not checked instead of leaving it implicit
    assert _config(doc, "L2", "ground_truth_f1_exact")["claim_basis"] == {
        "claim": "model capability",
        "rests_on": {"criterion_sensitivity": "pass (n = 50 samples compared)",
                     "ownership_completeness": "pass", "replay": "pass"},
        "not_checked": {"non_degeneracy": "no model targets"}}
    assert _config(doc, "L0", "ground_truth_f1_exact")["claim_basis"] == {
        "claim": "model–scaffold system performance",
        "rests_on": {"criterion_sensitivity": "pass (n = 50 samples compared)",
                     "ownership_completeness": "fail"}, "not_checked": {}}
    for level in ("L0", "L2"):
        assert _config(doc, level, "shape_judge")["claim_basis"] == {
            "claim": "self-report compliance",
            "rests_on": {"scorer_kind": "shape (n = 1 scorer declaration)",
                         "criterion_sensitivity": "fail (n = 50 samples compared)"},
            "not_checked": {}}


def test_l0_payloads_identical_and_only_l2_truth_spreads_fully(doc: dict) -> None:
    joint = doc["stages"]["joint"]
    assert joint["l0_all_identical"] and joint["l0_identical_pairs"] == joint["l0_payload_pairs"]
    assert joint["l0_payload_pairs"] == 21 * 5 * 5  # C(7,2) pairs x 5 tasks x 5 seeds
    cells = joint["cells"]
    assert cells["L2|ground_truth"]["spread"] == 1.0
    assert cells["L0|shipped"]["spread"] == 0.0 and cells["L0|ground_truth"]["spread"] == 0.0
    # At L2 the judge spreads the submitting targets over 0.327 only: it gives the fabricator
    # exactly careful's mean (0.9522) while ground truth spreads them over the full 0-1 range.
    means = cells["L2|shipped"]["target_means"]
    assert means["scripted:fabricator"] == means["scripted:careful"] == pytest.approx(0.9522)
    assert means["scripted:empty_submit"] == pytest.approx(0.6248)
    assert cells["L2|shipped"]["spread"] == pytest.approx(0.9522 - 0.6248)


def test_reliability_spectrum(doc: dict) -> None:
    spec = doc["stages"]["reliability"]
    rows = {r["target"]: r for r in spec["rows"]}
    assert len(rows) == 8 and all(r["n"] == 50 for r in rows.values())
    careful = rows["scripted:careful"]["summary"]
    assert careful["mean"]["value"] == 1.0 and careful["worst"]["value"] == 1.0
    fab = rows["scripted:fabricator"]["summary"]
    assert fab["mean"]["value"] == 0.0
    means = [r["summary"]["mean"]["value"] for r in spec["rows"]]
    assert means == sorted(means, reverse=True)


def test_ownership_and_calibration(doc: dict) -> None:
    own = doc["stages"]["ownership"]
    assert own["completeness"]["L0"]["status"] == "fail"
    assert own["completeness"]["L2"]["status"] == "pass"
    l1 = own["non_degeneracy"]["L1"]
    # Before: the L1 retry decision "passed" because always-skip differs from always-retry.
    # Per target, each fixed rule is degenerate by construction and never counts.
    assert (l1["status"], l1["reason"], l1["model_targets"]) == (
        "not probed", "no model targets", [])
    rules = {t["target"]: t for t in l1["fixed_rules"]}
    assert {t["status"] for t in rules.values()} == {"fixed rule"}
    for rule, action in (("l1:always-retry", "1"), ("l1:always-skip", "0")):
        (retry,) = rules[rule]["decisions"]
        assert retry["action_counts"] == {action: retry["observations"]} and \
            not retry["action_varies"]
    rules = {r["rule"]: r for r in own["rule_calibration"]["rules"]}
    assert rules["l1:always-retry"]["truth_mean"] > rules["l1:always-skip"]["truth_mean"]
    assert own["rule_calibration"]["decision_invariant"] is False


_AUDIT_FIVE_SEEDS = (
    "import sys\n"
    "from agentmetrology.audit.env_audit import audit_env, seal\n"
    "from agentmetrology.audit.targets.env import EnvTarget\n"
    "from agentmetrology.envs.registry import get_env\n"
    "from agentmetrology.records.canonical import canonical_json\n"
    "sys.stdout.buffer.write(canonical_json(seal(audit_env(EnvTarget(get_env('comtrade'), "
    "seeds=5)))))\n")


def test_audit_is_deterministic(doc: dict) -> None:
    # The fixture's five-seed audit again, in a fresh process with another hash seed:
    # byte-identical, every stage.
    proc = subprocess.run([sys.executable, "-c", _AUDIT_FIVE_SEEDS], capture_output=True,
                          check=False, timeout=300,
                          env={**os.environ, "PYTHONHASHSEED": "8191", "PYTHONPATH": SRC})
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert proc.stdout == canonical_json(doc)


def _scorer_file(tmp_path: Path, body: str) -> str:
    path = tmp_path / "my_scorer.py"
    path.write_text(body)
    return f"{path}:score"


def test_user_scorer_exceptions_become_invalid_cells(tmp_path: Path) -> None:
    spec = _scorer_file(tmp_path, (
        "import json\n"
        "def score(task_id, seed, submission):\n"
        "    lines = [x for x in submission['data_jsonl'].splitlines() if x.strip()]\n"
        "    if not lines:\n"
        "        raise RuntimeError('empty data')\n"
        "    return {'total': len(lines)}\n"))
    scorer = load_scorer(spec)
    target = ComtradeTarget(seeds=1, scorer=scorer, scorer_label=scorer.label)
    from agentmetrology.audit.probes import probe_battery

    res = probe_battery(target, target.tasks()[:2])
    empty = [c for c in res["cells"] if c["probe"] == "empty"]
    assert empty and all(c["status"] == "INVALID" and "empty data" in c["message"]
                         for c in empty)
    assert res["pairs_invalid"] == len(empty)
    # counting lines rewards duplicates: an inversion the audit must report
    assert any(o["probe"] == "duplicate_laden" and o["relation"] == "inversion"
               for o in res["offending"])


def test_id_only_scorer_is_fooled_by_guessed_ids_and_exact_scorer_is_not(
        tmp_path: Path) -> None:
    from agentmetrology.audit.probes import probe_battery

    body = (
        "import json\n"
        "from agentmetrology.envs.comtrade import generate_rows\n"
        "def score(task_id, seed, submission):\n"
        "    truth = {r['record_id']: r for r in generate_rows(task_id, seed)}\n"
        "    rows = [json.loads(x) for x in submission['data_jsonl'].splitlines() if x]\n"
        "    hits = {r.get('record_id') for r in rows if r.get('record_id') in truth\n"
        "            and (IDS_ONLY or r == truth[r['record_id']])}\n"
        "    return 0.0 if not hits else 2 * len(hits) / (len(truth) + len(rows))\n")
    ids_only = load_scorer(_scorer_file(tmp_path, "IDS_ONLY = True\n" + body))
    res = probe_battery(ComtradeTarget(seeds=1, scorer=ids_only), ComtradeTarget(1).tasks())
    assert res["status"] == "fail"
    assert {o["probe"] for o in res["offending"]} == {"guessed_ids"}
    (tmp_path / "exact").mkdir()
    exact = load_scorer(_scorer_file(tmp_path / "exact", "IDS_ONLY = False\n" + body))
    res = probe_battery(ComtradeTarget(seeds=1, scorer=exact), ComtradeTarget(1).tasks())
    assert res["status"] == "pass"


@pytest.mark.parametrize(("spec", "needle"), [
    ("nofunction", "FILE.py:function"),
    ("/nonexistent/x.py:f", "not an existing .py file"),
])
def test_bad_scorer_specs(spec: str, needle: str) -> None:
    with pytest.raises(ScorerLoadError, match=needle):
        load_scorer(spec)


def test_scorer_import_error_is_reported(tmp_path: Path) -> None:
    spec = _scorer_file(tmp_path, "raise ImportError('nope')\n")
    with pytest.raises(ScorerLoadError, match=r"importing my_scorer\.py failed"):
        load_scorer(spec)
    spec = _scorer_file(tmp_path, "x = 1\n")
    with pytest.raises(ScorerLoadError, match="no callable named 'score'"):
        load_scorer(spec)


def test_coerce_score_rejects_non_numbers() -> None:
    from agentmetrology.audit.scorer_override import coerce_score

    assert coerce_score(3).value == 3.0
    assert coerce_score({"total": 2.5}).value == 2.5
    assert coerce_score({"x": 1}).status == "INVALID"
    assert coerce_score("1").status == "INVALID"
    assert coerce_score(float("nan")).status == "INVALID"
    assert coerce_score(True).status == "INVALID"


def test_bfcl_cli_card_and_deviations(tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval", reason="bfcl-eval not installed: pip install --no-deps "
                                           "bfcl-eval==2026.3.23")
    from typer.testing import CliRunner

    from agentmetrology.cli.main import app

    result = CliRunner().invoke(app, ["audit", "bfcl", "--category", "simple_python",
                                      "--limit", "400", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.stderr
    card = json.loads(result.stdout)
    assert card["licensed_claim"] == "specification compliance"
    audit = json.loads((tmp_path / "audit.json").read_text())
    assert audit["target"]["cells"] == 2000 and audit["target"]["deviations"] == 0
    assert (tmp_path / "report.html").exists()


def test_bfcl_cli_bad_category_exits_2(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from agentmetrology.cli.main import app

    result = CliRunner().invoke(app, ["audit", "bfcl", "--category", "java_nope", "--out",
                                      str(tmp_path)])
    assert result.exit_code == 2 and "Traceback" not in result.stderr


def test_a_scorer_that_crashes_on_a_worse_probe_never_licenses_a_claim(tmp_path: Path) -> None:
    from agentmetrology.audit.probes import probe_battery

    spec = _scorer_file(tmp_path, (
        "import json\n"
        "from agentmetrology.envs.comtrade import generate_rows\n"
        "def score(task_id, seed, submission):\n"
        "    truth = {r['record_id']: r for r in generate_rows(task_id, seed)}\n"
        "    rows = [json.loads(x) for x in submission['data_jsonl'].splitlines() if x]\n"
        "    if any(r['record_id'] not in truth for r in rows if 'TOTAL' not in r['record_id']):\n"
        "        raise ValueError('unknown id')\n"
        "    hits = {r['record_id'] for r in rows if truth.get(r['record_id']) == r}\n"
        "    return 0.0 if not hits else 2 * len(hits) / (len(truth) + len(rows))\n"))
    scorer = load_scorer(spec)
    res = probe_battery(ComtradeTarget(seeds=1, scorer=scorer), ComtradeTarget(1).tasks())
    assert res["offending"] == [] and res["pairs_invalid"] > 0
    assert res["status"] == "not probed"


def test_bfcl_entries_without_an_oracle_are_named_on_the_terminal(tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval", reason="bfcl-eval not installed: pip install --no-deps "
                                           "bfcl-eval==2026.3.23")
    from typer.testing import CliRunner

    from agentmetrology.cli.main import app

    # live_simple_106-63-0 and live_simple_112-68-0: answers that contradict the schema
    result = CliRunner().invoke(app, ["audit", "bfcl", "--category", "live_simple",
                                      "--limit", "120", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert ("entries without an oracle (not probed): 2 of 120 (live_simple_106-63-0, "
            "live_simple_112-68-0; audit.json says why)") in " ".join(result.stdout.split())
    target = json.loads((tmp_path / "audit.json").read_text())["target"]
    assert (target["entries"], target["entries_without_oracle"], target["cells"]) == (
        120, 2, 590)
    assert sorted(target["without_oracle"]) == ["live_simple_106-63-0", "live_simple_112-68-0"]
