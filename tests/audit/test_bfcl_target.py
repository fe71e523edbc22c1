"""The bfcl audit target against the real bfcl-eval AST checker, and its forgery rules."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.audit.target import TaskRef
from agentmetrology.audit.targets.bfcl import PROBE_NAMES, BfclEntry, BfclTarget
from agentmetrology.audit.targets.bfcl_checker import (
    BFCL_EVAL_VERSION,
    CHECKER_MODEL,
    BfclChecker,
    BfclUnavailable,
    dataset_files,
    load_checker,
    underscore_to_dot_table,
)
from agentmetrology.audit.targets.bfcl_forge import allowed_anywhere, equivalent, vary

SKIP_REASON = (f"bfcl-eval is not installed (pip install --no-deps 'bfcl-eval=={BFCL_EVAL_VERSION}'"
               "): the real-checker tests need it")


@pytest.fixture(scope="module")
def checker() -> BfclChecker:
    pytest.importorskip("bfcl_eval", reason=SKIP_REASON)
    return load_checker()


@pytest.fixture(scope="module")
def target(checker: BfclChecker) -> BfclTarget:
    return BfclTarget("simple_python", limit=400)


def test_bfcl_unavailable_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bfcl_eval", None)  # makes `import bfcl_eval` fail
    load_checker.cache_clear()
    try:
        with pytest.raises(BfclUnavailable) as err:
            BfclTarget("simple_python")
    finally:
        load_checker.cache_clear()
    message = str(err.value)
    assert message.startswith("the bfcl target needs the optional extra: "
                              "pip install 'agentmetrology[bfcl]'")
    assert f"bfcl-eval=={BFCL_EVAL_VERSION}" in message
    assert "--no-deps" in message


def test_400_entries_zero_deviations(target: BfclTarget) -> None:
    assert target.scorer_kind == "specification"
    assert target.ownership_map() is None
    assert target.resolution == 0.5
    refs = target.tasks()
    assert len(refs) == 400
    passes = {name: 0 for name in PROBE_NAMES}
    cells = deviations = 0
    for ref in refs:
        correct = target.oracle(ref)
        assert correct is not None, ref
        probes = target.probes(ref, correct)
        assert [p.name for p in probes] == list(PROBE_NAMES)
        assert [p.truth for p in probes] == [1.0, 0.0, 0.0, 0.0, 0.0], (ref, probes)
        for probe in probes:
            outcome = target.score(ref, probe.submission)
            assert outcome.status == "ok", (ref, probe.name, outcome.message)
            cells += 1
            deviations += outcome.value != probe.truth
            passes[probe.name] += outcome.value == 1.0
    assert cells == 2000
    assert deviations == 0
    assert passes == {"correct": 400, "value_corrupted": 0, "fabricated": 0,
                      "wrong_function_name": 0, "empty_arguments": 0}


def test_old_category_name_maps_to_current(target: BfclTarget) -> None:
    old = BfclTarget("simple", limit=3)
    assert old.category == "simple_python"
    assert [r.task_id for r in old.tasks()] == [r.task_id for r in target.tasks()[:3]]


def test_unsupported_category_is_refused() -> None:
    with pytest.raises(ValueError, match="not supported"):
        BfclTarget("multi_turn_base")


def test_dotted_names_are_kept_for_the_checker_model(checker: BfclChecker) -> None:
    source = (Path(checker.module.__file__).parents[2] / "constants" / "model_config.py")
    table = underscore_to_dot_table(source.read_text(encoding="utf-8"))
    assert table[CHECKER_MODEL] is False
    assert len(table) > 100 and any(table.values())
    # The stand-in exists only while the checker file runs; the real module stays importable.
    assert "bfcl_eval.constants.model_config" not in sys.modules


def test_case_or_punctuation_change_is_not_a_corruption(checker: BfclChecker) -> None:
    norm = checker.standardize
    assert equivalent("New York, NY", "new-york ny", norm)
    assert allowed_anywhere("PARIS.", ["Paris", "Lyon"], norm)
    assert allowed_anywhere(["A_b", "c"], [["ab", "C"]], norm)
    assert not allowed_anywhere("Paris (altered 1)", ["Paris"], norm)
    # The first candidate normalises onto an allowed value, so the next one must be used.
    ok, new = vary("Paris", "perturb", "string", ["Paris", "paris (ALTERED-1)"], norm)
    assert ok and new == "Paris (altered 2)"


def test_numbers_booleans_and_lists(checker: BfclChecker) -> None:
    norm = checker.standardize
    assert vary(5, "perturb", "integer", [5, 6], norm) == (True, 4)
    ok, new = vary(5, "perturb", "float", [5.0], norm)
    assert ok and new == 6.0 and isinstance(new, float)
    assert vary(True, "perturb", "boolean", [True, False], norm) == (False, None)
    ok, new = vary(["a", "b"], "perturb", "string", [["a", "b"], ["A (altered-1)", "b"]], norm)
    assert ok and new == ["a (altered 2)", "b"]
    ok, new = vary([], "perturb", "integer", [[]], norm)
    assert ok and new and all(isinstance(x, int) for x in new)


def _entry(params: dict[str, Any], answer: dict[str, list[Any]],
           required: list[str]) -> BfclEntry:
    fn = {"name": "lights.set", "description": "",
          "parameters": {"type": "dict", "properties": params, "required": required}}
    return BfclEntry("synthetic_0", [fn], [{"lights.set": answer}])


def _battery(target: BfclTarget, entry: BfclEntry) -> list[tuple[str, float, float | None]]:
    target.entries[entry.entry_id] = entry
    ref = TaskRef(entry.entry_id)
    try:
        correct = target.oracle(ref)
        return [(p.name, p.truth, target.score(ref, p.submission).value)
                for p in target.probes(ref, correct)]
    finally:
        del target.entries[entry.entry_id]


def test_optional_parameter_supplies_the_corruption(target: BfclTarget) -> None:
    # The only required value allows both booleans, so the forger adds the omitted optional one.
    entry = _entry({"on": {"type": "boolean"}, "room": {"type": "string"}},
                   {"on": [True, False], "room": ["", "kitchen"]}, ["on"])
    rows = _battery(target, entry)
    assert all(truth == score for _, truth, score in rows), rows
    assert dict((n, t) for n, t, _ in rows)["value_corrupted"] == 0.0


def test_undegradable_probe_keeps_truth_one(target: BfclTarget) -> None:
    # Every value is allowed and every parameter optional: {} and "corruptions" are correct too.
    entry = _entry({"on": {"type": "boolean"}}, {"on": ["", True, False]}, [])
    rows = {n: (t, s) for n, t, s in _battery(target, entry)}
    assert rows["empty_arguments"] == (1.0, 1.0)
    assert rows["value_corrupted"] == (1.0, 1.0)
    assert rows["wrong_function_name"] == (0.0, 0.0)


def test_checker_exception_is_invalid(target: BfclTarget) -> None:
    outcome = target.score(target.tasks()[0], None)
    assert outcome.value is None and outcome.status == "INVALID"
    assert "ast_checker raised" in outcome.message


def test_defective_answers_have_no_oracle(checker: BfclChecker) -> None:
    live = BfclTarget("live_simple")
    broken = [r for r in live.tasks() if live.oracle(r) is None]
    assert [r.task_id for r in broken] == ["live_simple_106-63-0", "live_simple_112-68-0"]
    assert "allows no value" in (live.defect(broken[0]) or "")


def test_dataset_files_match_names_exactly(tmp_path: Path) -> None:
    (tmp_path / "possible_answer").mkdir()
    for name in ("BFCL_v3_simple.json", "BFCL_v3_live_multiple.json", "BFCL_v3_multiple.json"):
        (tmp_path / name).write_text("{}\n")
        (tmp_path / "possible_answer" / name).write_text("{}\n")
    questions, _, shipped = dataset_files(tmp_path, "simple_python")  # current name, old file
    assert (questions.name, shipped) == ("BFCL_v3_simple.json", "simple")
    questions, _, _ = dataset_files(tmp_path, "multiple")
    assert questions.name == "BFCL_v3_multiple.json"
    with pytest.raises(ValueError, match="ships no data"):
        dataset_files(tmp_path, "parallel")
