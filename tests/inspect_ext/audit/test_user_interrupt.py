"""Ctrl-C while `agm audit inspect` runs a scorer stops the audit; a scorer's own
KeyboardInterrupt stays its INVALID cell (audit.user_interrupt)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.inspect_ext.audit.load import load_task
from agentmetrology.inspect_ext.audit.target import audit_inspect
from support.ctrl_c import ctrl_c_when_begun

TASKS = Path(__file__).resolve().parent / "tasks" / "toy_tasks.py"
STOPPED = ["error: interrupted: no audit was written to out; run the same command to start "
           "again"]


@pytest.mark.parametrize("task", [
    "napping_scorer_task",  # Ctrl-C lands in the scorer's synchronous call
    "swallowing_scorer_task",  # lands in the event loop; the scorer answers 0.0 to it
    "napping_solver_task",  # lands in the task's own solver, in the do-nothing run
])
def test_ctrl_c_stops_the_audit_with_one_line_and_no_report(tmp_path: Path, task: str) -> None:
    # Before, Inspect's control server took the SIGINT: the run went on calling the scorer and
    # the audit wrote a card of the cells the user had stopped (exit 0), or read them as
    # "the sample ended before scoring"; a scorer blocking the loop ran every call (minutes).
    args = ["audit", "inspect", f"{TASKS}@{task}", "--out", "out", "--scorer-timeout", "120"]
    if task != "napping_solver_task":
        args.append("--no-empty-trajectory")
    code, out, err = ctrl_c_when_begun(args, tmp_path / "began", tmp_path)
    assert (code, out, err.splitlines()) == (130, "", STOPPED), err
    assert not (tmp_path / "out").exists()


def test_a_scorer_raising_keyboard_interrupt_is_still_its_invalid_cell() -> None:
    # pytest runs this in the main thread over Python's default SIGINT handler: the audit notes
    # real SIGINTs here, and a KeyboardInterrupt the scorer raises is not one.
    doc = audit_inspect(load_task(f"{TASKS}@keyboard_interrupt_scorer_task"), timeout=5.0,
                        empty_trajectory=False)
    raised = doc["stages"]["probes"]["shipped"]["cells"]
    assert raised and {(c["score"], c["status"], c["message"]) for c in raised} == {
        (None, "INVALID", "scorer raised KeyboardInterrupt: raised by the scorer")}
    exact = doc["stages"]["probes"]["scorer 2"]["cells"]
    assert len(exact) == len(raised) and all(c["status"] == "ok" for c in exact)
