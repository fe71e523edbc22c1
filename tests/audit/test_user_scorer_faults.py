"""A user's scorer cannot hang, kill or silence the audit, nor leak a secret into audit.json."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from agentmetrology.audit.env_audit import STAGES, audit_env
from agentmetrology.audit.probes import probe_battery
from agentmetrology.audit.scorer_override import (
    MAX_CONSECUTIVE_FAILURES,
    ScorerLoadError,
    coerce_score,
    load_scorer,
)
from agentmetrology.audit.target import ScoreOutcome
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.envs.registry import get_env

ComtradeTarget = partial(EnvTarget, get_env("comtrade"))
SUB = {"data_jsonl": "", "metadata_json": "{}", "run_log": ""}


def _scorer(tmp_path: Path, body: str) -> str:
    path = tmp_path / "faulty.py"
    path.write_text("import os, sys, time\n" + body)
    return f"{path}:score"


def test_a_hung_call_is_killed_and_the_next_call_gets_a_fresh_process(tmp_path: Path) -> None:
    spec = _scorer(tmp_path, (
        "def score(task_id, seed, submission):\n"
        "    if not submission['data_jsonl'].strip():\n"
        "        time.sleep(10 ** 6)\n"
        "    return 1.0\n"))
    # 1.5 s: each answered call is a pipe round trip to a process that has imported the
    # scorer already (milliseconds even at load 10); each hung call costs the whole timeout.
    with load_scorer(spec, timeout=1.5) as scorer:
        target = ComtradeTarget(seeds=1, scorer=scorer, scorer_label=scorer.label)
        res = probe_battery(target, target.tasks()[:2])
        empty = [c for c in res["cells"] if c["probe"] == "empty"]
        assert len(empty) == 2
        assert all(c["status"] == "INVALID" and c["message"] == "timeout after 1.5 s"
                   for c in empty)
        others = [c for c in res["cells"] if c["probe"] != "empty"]
        assert others and all(c["score"] == 1.0 for c in others)
        assert scorer.starts == 3  # the first process, and one after each killed call
        assert res["invalid_reasons"] == [{"reason": "timeout after 1.5 s", "cells": 2}]


def test_a_scorer_that_always_hangs_is_given_up_after_three_timeouts(tmp_path: Path) -> None:
    spec = _scorer(tmp_path, "def score(task_id, seed, submission):\n    time.sleep(10 ** 6)\n")
    with load_scorer(spec, timeout=0.5) as scorer:
        outs = [scorer("T1_single_page", 0, SUB) for _ in range(6)]
    assert MAX_CONSECUTIVE_FAILURES == 3 and scorer.calls == 3
    assert [o.message for o in outs[:3]] == ["timeout after 0.5 s"] * 3
    assert {o.message for o in outs[3:]} == {
        "not called: the scorer failed 3 times in a row (last: timeout after 0.5 s)"}
    assert all(o.status == "INVALID" and o.value is None for o in outs)


@pytest.mark.parametrize(("raise_", "message"), [
    ("raise SystemExit(0)", "SystemExit: 0"),
    ("sys.exit()", "SystemExit"),
    ("raise KeyboardInterrupt", "KeyboardInterrupt"),
    ("raise GeneratorExit('gone')", "GeneratorExit: gone"),
    ("os._exit(7)", "the scorer's process died (exit code 7)"),
    ("return 10 ** 400", "scorer returned an integer too large for a float: not a finite number"),
])
def test_any_exit_of_user_code_is_an_invalid_cell(tmp_path: Path, raise_: str,
                                                  message: str) -> None:
    spec = _scorer(tmp_path, f"def score(task_id, seed, submission):\n    {raise_}\n")
    with load_scorer(spec, timeout=30) as scorer:
        out = scorer("T1_single_page", 0, SUB)
        assert (out.value, out.status, out.message) == (None, "INVALID", message)
        again = scorer("T1_single_page", 0, SUB)  # the scorer still answers afterwards
        assert again.message == message


def test_coerce_score_of_an_int_beyond_float_range() -> None:
    out = coerce_score(10 ** 400)
    assert (out.value, out.status) == (None, "INVALID")
    assert out.message == "scorer returned an integer too large for a float: not a finite number"
    assert coerce_score({"total": -(10 ** 400)}).status == "INVALID"
    assert coerce_score(float("inf")).message == "scorer returned inf: not a finite number"
    assert coerce_score(2 ** 60).value == float(2 ** 60)


def test_numpy_scalars_and_fractions_are_numbers_bools_and_decimals_are_not() -> None:
    # A scorer built on numpy returns np.float32 or np.int64: both were refused as "not a
    # number", so every cell of a working scorer was INVALID.
    from decimal import Decimal
    from fractions import Fraction

    import numpy as np

    assert coerce_score(np.float32(0.5)) == ScoreOutcome(0.5)
    assert coerce_score({"total": np.int64(3)}) == ScoreOutcome(3.0)
    assert coerce_score(Fraction(1, 4)) == ScoreOutcome(0.25)
    assert coerce_score(np.float64("nan")).message == "scorer returned nan: not a finite number"
    assert coerce_score(np.bool_(True)).message == "scorer returned bool, not a number"
    assert coerce_score(Decimal("1.5")).message == "scorer returned Decimal, not a number"
    assert coerce_score(np.array([0.5])).message == "scorer returned ndarray, not a number"


def test_error_text_is_redacted_of_key_shapes_and_credential_env_values(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_API_KEY", "zq7Value-Of-The-Secret-4411")
    spec = _scorer(tmp_path, (
        "def score(task_id, seed, submission):\n"
        "    raise ValueError('rejected sk-ant-api03-abcdefghijklmnop and '\n"
        "                     + os.environ['MY_SERVICE_API_KEY'] + ' and '\n"
        "                     + os.environ['MY_SERVICE_API_KEY'][3:20])\n"))
    with load_scorer(spec) as scorer:
        out = scorer("T1_single_page", 0, SUB)
    assert out.status == "INVALID"
    assert out.message == "ValueError: rejected [redacted] and [redacted] and [redacted]"


def test_import_failures_of_any_kind_are_load_errors(tmp_path: Path) -> None:
    with pytest.raises(ScorerLoadError, match=r"importing faulty\.py failed: SystemExit: 3"):
        load_scorer(_scorer(tmp_path, "sys.exit(3)\n"))
    with pytest.raises(ScorerLoadError, match=r"the scorer timeout must be a positive"):
        load_scorer(_scorer(tmp_path, "def score(*a): return 1\n"), timeout=0)


def test_user_prints_do_not_reach_stdout(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    spec = _scorer(tmp_path, ("def score(task_id, seed, submission):\n"
                              "    print('chatty scorer', flush=True)\n    return 0.5\n"))
    with load_scorer(spec) as scorer:
        assert scorer("T1_single_page", 0, SUB).value == 0.5
    out, err = capfd.readouterr()
    assert "chatty scorer" not in out and "chatty scorer" in err


def test_audit_env_reports_each_stage_to_the_progress_callback() -> None:
    seen: list[tuple[str, int, int]] = []
    # researchops runs every stage as comtrade does (each hook supplied), in 0.1 s, not 2 s
    audit_env(EnvTarget(get_env("researchops"), seeds=1), progress=lambda *a: seen.append(a))
    assert STAGES == ("probes", "ownership", "2x2", "replay", "spectrum", "solvability")
    assert seen == [(s, i, 6) for i, s in enumerate(STAGES)] + [("done", 6, 6)]


def test_ground_truth_only_stages_do_not_call_the_user_scorer(tmp_path: Path) -> None:
    spec = _scorer(tmp_path, "def score(task_id, seed, submission):\n    return 1.0\n")
    with load_scorer(spec) as scorer:
        target = ComtradeTarget(seeds=1, scorer=scorer, scorer_label=scorer.label)
        run = target.run_episode("scripted:careful", "L2", "T1_single_page", 0, shipped=False)
        assert scorer.calls == 0 and run.shipped.value is None and run.truth == 1.0
        assert target.run_episode("scripted:careful", "L2", "T1_single_page", 0).shipped.value \
            == 1.0
        assert scorer.calls == 1


@pytest.mark.parametrize(("defn", "shown"), [
    ("def score(task_id, submission):\n    return 1.0\n", "score(task_id, submission)"),
    ("def score():\n    return 1.0\n", "score()"),
    ("def score(task_id, seed, submission, extra):\n    return 1.0\n",
     "score(task_id, seed, submission, extra)"),
])
def test_a_scorer_with_the_wrong_signature_is_refused_when_loaded(tmp_path: Path, defn: str,
                                                                  shown: str) -> None:
    # Before: loaded, then every cell INVALID "TypeError: score() takes 2 positional arguments
    # but 3 were given" after a whole audit; now one line before any work is done.
    with pytest.raises(ScorerLoadError) as err:
        load_scorer(_scorer(tmp_path, defn))
    assert str(err.value) == (f"faulty.py:{shown} cannot be called as "
                              f"score(task_id, seed, submission)")


def test_a_scorer_taking_any_arguments_or_a_callable_object_loads(tmp_path: Path) -> None:
    spec = _scorer(tmp_path, "def score(*args, **kw):\n    return 0.5\n"
                             "class C:\n    def __call__(self, t, s, x):\n        return 0.25\n"
                             "c = C()\n")
    with load_scorer(spec) as scorer:
        assert scorer("T1_single_page", 0, SUB).value == 0.5
    with load_scorer(spec.replace(":score", ":c")) as scorer:
        assert scorer("T1_single_page", 0, SUB).value == 0.25


def test_a_restarted_worker_runs_only_the_code_the_card_names(tmp_path: Path) -> None:
    # The worker re-read the file at every (re)start: a file edited during an audit was
    # scored with the new code while the card named the old code's sha256.
    spec = _scorer(tmp_path, "def score(task_id, seed, submission):\n    return 0.25\n")
    path = tmp_path / "faulty.py"
    with load_scorer(spec) as scorer:
        assert scorer("T1", 0, SUB).value == 0.25
        path.write_text("def score(task_id, seed, submission):\n    return 0.75\n")
        scorer.close()  # as after a timeout or a crash: the next call starts a new worker
        out = scorer("T1", 0, SUB)
        assert out.value is None and out.status == "INVALID"
        assert out.message is not None and "faulty.py changed during the audit" in out.message
    with pytest.raises(ScorerLoadError, match="SyntaxError"):  # compiled from the bytes read
        load_scorer(_scorer(tmp_path, "def score(:\n"))
