"""`agm evidence qualify --recompute` derives every kind of store report again: a diagnose, an
experiment report and a regrade, not only an archive audit. Before, a number edited in
diagnose.json, experiment.json or regrade.json (files rendered again, binding kept) qualified
with or without --recompute; now the recomputation names it, and a report bound to the store
that no analysis can derive again (edited parameters, schema or registration) is a problem,
not a note."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from diagnose.test_judge_audit import CAMPAIGN as JUDGED
from support.agm_runs import agm
from support.fake_openai import FakeOpenAI, text
from support.small_campaigns import RESEARCHOPS_GRID
from support.stores import record_campaign

SQUEEZE = Path(__file__).parents[2] / "examples" / "experiment_squeeze.toml"
EQUAL = "recomputed from the store: every section of the report is equal"


def _qualify(report: Path, store: Path, *more: str) -> tuple[int, dict[str, Any]]:
    r = agm("evidence", "qualify", str(report), "--store", str(store), "--json", *more)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


def _edit(report: Path, name: str, change: Callable[[dict[str, Any]], None],
          forged: Path) -> Path:
    """Return `forged`, a copy of a report directory whose JSON `change` edited (its binding
    kept)."""
    forged.mkdir()
    for f in report.iterdir():
        (forged / f.name).write_bytes(f.read_bytes())
    doc = json.loads((forged / name).read_text())
    change(doc)
    (forged / name).write_text(json.dumps(doc, indent=2, sort_keys=True))
    return forged


@pytest.fixture(scope="module")
def diagnosed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A small grid with mutations and its diagnose (report dir, store)."""
    root = tmp_path_factory.mktemp("recompute-diagnose")
    store = record_campaign(root, RESEARCHOPS_GRID)
    assert agm("diagnose", str(store), "--out", str(root / "dg")).returncode == 0
    return root / "dg", store


def test_a_diagnose_is_derived_again_and_an_edited_number_is_named(
        diagnosed: tuple[Path, Path], tmp_path: Path) -> None:
    report, store = diagnosed
    code, got = _qualify(report, store, "--recompute")
    assert code == 0 and got["notes"] == [EQUAL] and got["numbers_rederived"] is True
    doc = json.loads((report / "diagnose.json").read_text())
    group = sorted(doc["groups"])[0]
    true_msr = doc["groups"][group]["msr"]

    def forge(d: dict[str, Any]) -> None:
        d["groups"][group]["msr"] = 0.123
    forged = _edit(report, "diagnose.json", forge, tmp_path / "dg")
    code, got = _qualify(forged, store)
    assert code == 0 and got["numbers_rederived"] is False  # what the forger counts on
    assert got["numbers"].endswith("`--recompute` re-derives them (one diagnose of the store "
                                   "(a judge is not asked again))")
    code, got = _qualify(forged, store, "--recompute")
    assert code == 1 and got["problems"] == [{
        "kind": "report_recomputed_differs", "result": "invalid_binding",
        "detail": f"recomputed from the store, diagnose.json differs: groups.{group}.msr: "
                  f"0.123 in the report, {true_msr!r} recomputed"}]


@pytest.mark.parametrize(("change", "detail"), [
    (lambda d: d.__setitem__("analysis_seed", "x"),
     "diagnose.json cannot be derived again from the store: its analysis_seed is 'x', not a "
     "non-negative integer"),
    (lambda d: d.__setitem__("tau", 7.0),
     "diagnose.json cannot be derived again from the store: --tau 7.0 is not a pass threshold: "
     "diagnose reads every verifier on a 0-1 scale (a 0-100 judge is divided by 100), so give "
     "0 < tau <= 1"),
    (lambda d: d.__setitem__("schema", "agentmetrology.other/1"),
     "diagnose.json is bound to the store's chain but says it is not a report of a store "
     "(schema 'agentmetrology.other/1'): edited; its numbers cannot be re-derived"),
])
def test_a_bound_report_no_analysis_derives_again_is_a_problem_not_a_note(
        diagnosed: tuple[Path, Path], change: Callable[[dict[str, Any]], None],
        detail: str, tmp_path: Path) -> None:
    # Before, a forger who made the report unrecomputable stepped around the comparison: it
    # qualified with a note.
    report, store = diagnosed
    forged = _edit(report, "diagnose.json", change, tmp_path / "dg")
    code, got = _qualify(forged, store, "--recompute")
    assert code == 1 and got["problems"] == [
        {"kind": "report_not_derivable", "result": "invalid_binding", "detail": detail}]
    assert got["numbers_rederived"] is False and "--recompute` re-derives" not in got["numbers"]


def _judged(tmp_path: Path, mutations: bool, answer: str = "PASS", model: str = "j") -> Path:
    """Return a store judged by a fake judge (its report under tmp_path/dg)."""
    campaign = JUDGED.replace('levels = ["L2"]', 'levels = ["L2"]\nmutations = ["alias"]'
                              if mutations else 'levels = ["L2"]')
    store = record_campaign(tmp_path, campaign, "s")
    with FakeOpenAI(itertools.repeat(lambda body: text(answer), 1000)) as srv:
        assert agm("diagnose", str(store), "--out", str(tmp_path / "dg"), "--judge-model", model,
                   "--base-url", srv.base_url, "--judge-calls", "1").returncode == 0
    return store


@pytest.mark.parametrize("mutations", [True, False])
def test_a_judged_diagnose_is_derived_again_from_the_verdicts_the_store_keeps(
        mutations: bool, tmp_path: Path) -> None:
    # Before, the judge audit was left out of the comparison (its verdicts were not in the
    # store), so a forger's judge numbers qualified with a note; a judge audit alone was not
    # recomputed at all.
    store = _judged(tmp_path, mutations)
    code, got = _qualify(tmp_path / "dg", store, "--recompute")
    assert code == 0 and got["notes"] == [
        "recomputed from the store: every section of the report is equal",
        "the judge audit is derived again from the verdicts and requests the store keeps (its "
        "model calls are not repeated)"]
    assert got["numbers_rederived"] is True
    doc = json.loads((tmp_path / "dg" / "diagnose.json").read_text())
    ja = doc["judge_audit"]
    assert ja["recorded_in_store"]["verdicts"] == ja["cells"] == 32
    assert ja["judges"]["llm:j"]["views"]["original"]["verdicts"]["PASS"] == 8

    def forge(d: dict[str, Any]) -> None:
        d["judge_audit"]["judges"]["llm:j"]["views"]["original"]["verdicts"]["PASS"] = 7
        d["judge_audit"]["judges"]["llm:j"]["views"]["original"]["verdicts"]["FAIL"] = 1
    forged = _edit(tmp_path / "dg", "diagnose.json", forge, tmp_path / "forged")
    code, got = _qualify(forged, store, "--recompute")
    assert code == 1 and [p["kind"] for p in got["problems"]] == ["report_recomputed_differs"]
    assert ("judge_audit.judges.llm:j.views.original.verdicts.PASS: 7 in the report, 8 "
            "recomputed") in got["problems"][0]["detail"]


@pytest.mark.parametrize("mutations", [True, False])
def test_a_judge_audit_whose_verdicts_the_store_lacks_is_said_so(mutations: bool,
                                                                 tmp_path: Path) -> None:
    # A report from before verdicts were kept (no run named, or none kept under it): its judge
    # audit is left out and said, as before; a judge audit alone is not recomputed.
    store = _judged(tmp_path, mutations)

    def older(d: dict[str, Any]) -> None:
        d["judge_audit"]["recorded_in_store"].pop("run")
    forged = _edit(tmp_path / "dg", "diagnose.json", older, tmp_path / "older")
    code, got = _qualify(forged, store, "--recompute")
    assert code == 0 and got["notes"] == ([
        "recomputed from the store: every compared section of the report is equal",
        "the judge audit is not derived again: the store keeps no verdict of it (an audit run "
        "before verdicts were kept, or one the store could not be written for), and its model "
        "calls are not repeated: judge_audit and the report digest covering it are not "
        "compared"] if mutations else [
        "not recomputed: the report is a judge audit alone, the store keeps no verdict of it, "
        "and its model calls are not repeated (no mutated pair to derive again)"])
    assert got["numbers_rederived"] is mutations


def test_an_edited_verdict_fails_verification(tmp_path: Path) -> None:
    store = _judged(tmp_path, False)
    assert agm("evidence", "verify", str(store)).returncode == 0
    with sqlite3.connect(store / "ledger.sqlite") as c:
        (n,) = c.execute("SELECT COUNT(*) FROM grader_verdicts WHERE verdict = 'PASS'").fetchone()
        assert n == 32
        c.execute("UPDATE grader_verdicts SET verdict = 'FAIL' WHERE id = 1")
    res = agm("evidence", "verify", str(store))
    assert res.returncode != 0 and "grader_verdicts" in res.stdout + res.stderr


def test_an_experiment_report_is_derived_again(tmp_path: Path) -> None:
    store, out = tmp_path / "exp", tmp_path / "er"
    assert agm("experiment", "run", str(SQUEEZE), "--store", str(store)).returncode == 0
    assert agm("experiment", "report", str(SQUEEZE), "--store", str(store), "--out",
               str(out)).returncode == 0
    code, got = _qualify(out, store, "--recompute")
    assert code == 0 and got["notes"] == [EQUAL]
    doc = json.loads((out / "experiment.json").read_text())
    verdict = doc["cells"][0]["verdict"]
    forged = _edit(out, "experiment.json", lambda d: d["cells"][0].__setitem__(
        "verdict", "confirmed" if verdict != "confirmed" else "not confirmed"), tmp_path / "f1")
    code, got = _qualify(forged, store, "--recompute")
    assert code == 1 and [p["kind"] for p in got["problems"]] == ["report_recomputed_differs"]
    assert got["problems"][0]["detail"].startswith(
        "recomputed from the store, experiment.json differs: cells[0].verdict: ")
    other = _edit(out, "experiment.json", lambda d: d.__setitem__("plan_digest", "0" * 64),
                  tmp_path / "f2")
    code, got = _qualify(other, store, "--recompute")
    assert code == 1 and got["problems"] == [{
        "kind": "report_not_derivable", "result": "invalid_binding",
        "detail": f"experiment.json cannot be derived again from the store: the store holds no "
                  f"registration {doc['registration']} of experiment {doc['experiment']!r} "
                  "with plan 000000000000"}]


def test_a_regrade_is_derived_again(diagnosed: tuple[Path, Path], tmp_path: Path) -> None:
    _, store = diagnosed
    out = tmp_path / "rg"
    assert agm("archive", "regrade", str(store), "--out", str(out)).returncode == 0
    code, got = _qualify(out, store, "--recompute")
    assert code == 0 and got["notes"] == [EQUAL] and got["numbers_rederived"] is True
    forged = _edit(out, "regrade.json", lambda d: d["store"].__setitem__("recorded", 1),
                   tmp_path / "f")
    code, got = _qualify(forged, store, "--recompute")
    assert code == 1 and [p["kind"] for p in got["problems"]] == ["report_recomputed_differs"]
    assert "store.recorded: 1 in the report" in got["problems"][0]["detail"]


def test_a_diagnose_or_experiment_text_edited_after_it_was_written_is_named(
        diagnosed: tuple[Path, Path], tmp_path: Path) -> None:
    # Before, report.md / report.html beside diagnose.json or experiment.json were never
    # checked: a number edited in them qualified. The binding now records their digests.
    report, store = diagnosed
    binding = json.loads((report / "evidence.json").read_text())
    assert set(binding["rendered"]) == {"report.md", "report.html"}
    code, got = _qualify(report, store)
    assert code == 0 and got["problems"] == [] and got["notes"] == []
    edited = _edit(report, "diagnose.json", lambda d: None, tmp_path / "dg")
    text = (edited / "report.md").read_text(encoding="utf-8")
    (edited / "report.md").write_text(text.replace("0.", "9.", 1), encoding="utf-8")
    code, got = _qualify(edited, store)
    assert code == 1 and got["problems"] == [{
        "kind": "report_text_changed", "result": "invalid_binding",
        "detail": "report.md was changed after it was written (it does not hash to the digest "
                  "evidence.json records): its numbers are not the qualified ones; write the "
                  "report again"}]
    # a binding written before the digests were recorded: unchecked, and said so
    older = _edit(report, "diagnose.json", lambda d: None, tmp_path / "older")
    del binding["rendered"]
    (older / "evidence.json").write_text(json.dumps(binding))
    code, got = _qualify(older, store)
    assert code == 0 and got["notes"] == [
        "report.md, report.html not checked: evidence.json records no digest of the files "
        "rendered from diagnose.json (written before agm recorded them)"]


KEY = "sk-" + "abcdefghij" * 4


@pytest.mark.parametrize(("mutations", "where"), [(True, "answer"), (False, "answer"),
                                                   (False, "judge")])
def test_a_judge_audit_holding_a_credential_pattern_is_derived_again(
        mutations: bool, where: str, tmp_path: Path) -> None:
    # The verdict rows keep the judge's name, reason and answer redacted; the report's judge
    # audit was computed from the cells before redaction, so it named the key and
    # `--recompute` (from the rows as stored) reported report_recomputed_differs: a false alarm.
    # The document is now computed from the verdicts as the store keeps them.
    store = _judged(tmp_path, mutations, answer=f"cannot tell, {KEY}" if where == "answer"
                    else "PASS", model=KEY if where == "judge" else "j")
    code, got = _qualify(tmp_path / "dg", store, "--recompute")
    assert code == 0, got["problems"]
    assert got["numbers_rederived"] is True
    ja = json.loads((tmp_path / "dg" / "diagnose.json").read_text())["judge_audit"]
    # (the attempts list names the model as sent, which the store keeps as sent too)
    assert KEY not in json.dumps({k: v for k, v in ja.items() if k != "billable_attempts"})
    if where == "answer":
        assert ja["unknown_cells"] == 32
        assert ja["unknown_reasons"] == {"unparseable verdict: 'cannot tell, [redacted]'": 32}
    else:
        assert list(ja["judges"]) == list(ja["billable_attempts"]) == ["llm:[redacted]"]
        assert ja["judges"]["llm:[redacted]"]["views"]["original"]["verdicts"]["PASS"] == 8
