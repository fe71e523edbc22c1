"""Ctrl-C while `agm audit ENV --scorer FILE:FUNC` runs the scorer stops the audit in one line."""

from __future__ import annotations

import os
import time
from pathlib import Path

from support.ctrl_c import ctrl_c_when_begun

SCORER = """\
import os, time
def score(task_id, seed, submission):
    with open(os.environ["AGM_TEST_STARTED"], "a") as f:
        f.write(f"{os.getpid()}\\n")
    time.sleep(20)
    return 1.0
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_ctrl_c_mid_scorer_exits_130_with_one_line_no_report_and_no_worker_left(
        tmp_path: Path) -> None:
    # Before, the audit stopped (exit 130) but said nothing at all. The scorer's worker runs in
    # a session of its own (a Ctrl-C never reaches it, so never becomes its INVALID cell); it
    # is ended with the audit.
    (tmp_path / "naps.py").write_text(SCORER, encoding="utf-8")
    began = tmp_path / "began"
    code, out, err = ctrl_c_when_begun(
        ["audit", "comtrade", "--seeds", "0-0", "--out", "out", "--scorer", "naps.py:score",
         "--scorer-timeout", "120"], began, tmp_path)
    assert (code, out, err.splitlines()) == (130, "", [
        "error: interrupted: no audit was written to out; run the same command to start "
        "again"]), err
    assert not (tmp_path / "out").exists()
    worker = int(began.read_text().split()[0])
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker)
