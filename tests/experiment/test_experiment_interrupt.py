"""An interrupted `agm experiment run` says, in one line, that the same command resumes and which
command (as `agm campaign run` does), SIGTERM included; before, it said "interrupted: run the
same command to resume" without the command, and SIGTERM ended it at once, silently, its
attempts left `started`."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from run.campaign.campaign_fixtures import query
from run.campaign.test_interrupt_says_resume import (
    KEPT,
    _attempts_of_recorded,
    _recorded,
    _stopped,
)
from support.agm_runs import run_main

PLAN = """[experiment]
name = "stopped"
hypothesis = "escalation costs coverage at matched mean"
kind = "ab"
targets = ["scripted:careful", "rule"]
n = 200
"""


def test_a_stopped_experiment_names_the_command_that_resumes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "plan.toml").write_text(PLAN)
    store = tmp_path / "the store"
    args = ["experiment", "run", "plan.toml", "--store", "the store"]
    for sig, code, said in ((signal.SIGTERM, 143, "interrupted (SIGTERM)"),
                            (signal.SIGINT, 130, "interrupted")):
        done = _recorded(store)
        got, err = _stopped(args, lambda n=done: _recorded(store) >= n + 2, sig, tmp_path)
        assert got == code, err
        assert err.splitlines() == [
            f"error: {said}: {KEPT}agm experiment run plan.toml --store 'the store'"]
    # the same cleanup as Ctrl-C: no attempt left `started`
    assert query(store, "SELECT COUNT(*) FROM attempts WHERE status = 'started'")[0][0] == 0
    before = _attempts_of_recorded(store)
    # each recorded episode has its one finished attempt (an attempt in flight at the first
    # signal, recorded as interrupted, may precede it)
    assert len(before) >= 4 and all([s for _, s in a][-1:] == ["finished"] and
                                    {s for _, s in a[:-1]} <= {"interrupted"}
                                    for a in before.values())
    monkeypatch.chdir(tmp_path)  # the command names the plan relative to where it ran
    rerun = run_main(args)
    assert rerun.returncode == 0, rerun.stderr
    assert "resumed" in rerun.stdout
    after = _attempts_of_recorded(store)
    assert {adm: after[adm] for adm in before} == before  # none of them was run again
