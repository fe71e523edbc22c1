"""The do-nothing verdicts from inspect-evals' own tau2 evaluator, on small subsets of tasks.

The evaluator runs an empty-trajectory episode per task (seconds each), so the subsets are the
tasks the acceptance numbers need: qwen2.5:7b's nine airline passes plus two failures, and a
few telecom tasks. The by-hand side is the README's reading of the task definitions: a task
whose gold actions write nothing and that requires no output is one a do-nothing agent passes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentmetrology.archive import audit_archive, load_archive
from agentmetrology.archive import tau2_donothing as dn
from archive.tau2_files import (
    GPT_TELECOM,
    QWEN_AIRLINE,
    raw,
    shared,
    writes_nothing_and_says_nothing,
)

pytest.importorskip("inspect_evals", reason="needs the `inspect` extra (inspect-evals)")

@pytest.fixture(scope="module")
def memo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tau2-memo")


@pytest.fixture(scope="module")
def qwen_subset(memo: Path) -> tuple[dict[str, Any], set[str]]:
    data = raw(QWEN_AIRLINE)
    passed = {s["task_id"] for s in data["simulations"] if s["reward_info"]["reward"] == 1.0}
    subset = passed | {"2", "3"}
    defs = {t["id"]: t for t in data["tasks"] if t["id"] in subset}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(dn.MEMO_ENV, str(memo))
        return dn.do_nothing_verdicts("airline", defs), passed


def test_qwen_passes_are_all_do_nothing_passable_by_the_evaluator(qwen_subset) -> None:
    verdicts, passed = qwen_subset
    tasks = verdicts["tasks"]
    assert verdicts["applicable"] and verdicts["evaluator"].startswith("inspect-evals ")
    assert {t for t, v in tasks.items() if v["passed"]} == passed
    assert tasks["2"]["passed"] is False and tasks["3"]["passed"] is False
    # by hand from the task definitions: every pass writes nothing and needs no output
    defs = {t["id"]: t for t in raw(QWEN_AIRLINE)["tasks"]}
    assert all(writes_nothing_and_says_nothing(defs[t]) for t in passed)
    assert sum(writes_nothing_and_says_nothing(t) for t in defs.values()) == 19


def test_verdicts_are_memoised(qwen_subset, memo: Path, monkeypatch: pytest.MonkeyPatch
                               ) -> None:
    verdicts, _ = qwen_subset
    assert len(list(memo.glob("*.json"))) == len(verdicts["tasks"]) == 11

    def refuse(domain: str, defs: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError(f"evaluator ran again for {sorted(defs)}")

    monkeypatch.setenv(dn.MEMO_ENV, str(memo))
    monkeypatch.setattr(dn, "run_evaluator", refuse)
    data = raw(QWEN_AIRLINE)
    defs = {t["id"]: t for t in data["tasks"] if t["id"] in verdicts["tasks"]}
    assert dn.do_nothing_verdicts("airline", defs) == verdicts  # every verdict from the memo
    defs["7"] = next(t for t in data["tasks"] if t["id"] == "7")
    with pytest.raises(AssertionError, match=r"evaluator ran again for \['7'\]"):
        dn.do_nothing_verdicts("airline", defs)  # only the task not in the memo runs


def test_qwen_audit_says_it_first(qwen_subset) -> None:
    verdicts, passed = qwen_subset

    def known(domain: str, defs: dict[str, Any]) -> dict[str, Any]:
        return {t: verdicts["tasks"][t] for t in defs if t in verdicts["tasks"]}

    doc = audit_archive(load_archive(shared(QWEN_AIRLINE)), evaluator=known)["tau2"]
    assert doc["headlines"][0]["code"] == "all_passes_do_nothing_passable"
    assert doc["do_nothing"]["passable"]["passes"] == len(passed) == 9
    assert doc["do_nothing"]["not_probed"]["tasks"] == 50 - 11


def test_telecom_tasks_fail_when_nothing_is_done(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(dn.MEMO_ENV, "")  # off: the evaluator must run
    tasks = raw(GPT_TELECOM)["tasks"][:3]
    verdicts = dn.do_nothing_verdicts("telecom", {t["id"]: t for t in tasks})
    assert [v["passed"] for v in verdicts["tasks"].values()] == [False, False, False]
    assert shared(GPT_TELECOM).is_file()


def test_without_definitions_nothing_is_probed() -> None:
    out = dn.do_nothing_verdicts(None, {})
    assert not out["applicable"] and "no task definitions" in out["reason"]


def test_the_memo_is_turned_off_by_the_words_for_off(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # AGM_TAU2_CACHE=0 named a folder "0" in the working directory (AGM_VERIFY_CACHE was fixed
    # for the same; both read edges.cache_dir now)
    for off in ("", "0", "off", "No", "false", " none "):
        monkeypatch.setenv(dn.MEMO_ENV, off)
        assert dn.memo_dir() is None, off
    monkeypatch.setenv(dn.MEMO_ENV, str(tmp_path / "0"))
    assert dn.memo_dir() == tmp_path / "0"
    monkeypatch.delenv(dn.MEMO_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert dn.memo_dir() == tmp_path / "agentmetrology" / "tau2-do-nothing"
