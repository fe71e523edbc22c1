"""An interrupted `agm campaign run` / `agm run` says, in one line, that the same command resumes,
and which command: a real `agm` process gets SIGINT (Ctrl-C) or SIGTERM mid-run, then the same
command runs what the store does not hold yet, and nothing it held again.

Before, `agm campaign run` said "run the same command to resume" without the command, `agm
run --agent llm:...` said "interrupted after 0 of N episodes" (its rows are read from the store
at the end) with no word of resuming, and SIGTERM killed either at once, silently.
"""

from __future__ import annotations

import itertools
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.run.campaign import load_campaign, plan_campaign
from run.campaign.campaign_fixtures import model_free, query, write
from support.agm_runs import AGM, run_main
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI, Reply

# Heavy tasks and enough seeds that the run is still going when the signal comes (as in
# test_campaign_interrupt.py): a run that finished first fails the test for no fault.
HEAVY = '["T7_totals_trap", "T1_single_page", "T3_duplicates", "T8_mixed_faults"]'
KEPT = ("the episodes recorded so far are kept and are not run again (attempts in flight are "
        "recorded as interrupted); to resume, run the same command: ")


def _recorded(store: Path) -> int:
    try:
        return int(query(store, "SELECT COUNT(*) FROM episodes")[0][0])
    except sqlite3.OperationalError:
        return 0  # the ledger is not created yet


def _stopped(args: list[str], ready: Callable[[], bool], sig: signal.Signals,
             cwd: Path) -> tuple[int, str]:
    """Run `agm ARGS` in a process of its own, send `sig` to it once `ready()`; return its exit
    code and stderr."""
    proc = subprocess.Popen([*AGM, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, cwd=cwd)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and not ready():
            time.sleep(0.02)
        assert proc.poll() is None, f"the run ended before {sig.name}: {proc.stderr}"
        os.kill(proc.pid, sig)
        _, err = proc.communicate(timeout=20)  # a hang fails here
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, err


def _attempts_of_recorded(store: Path) -> dict[int, list[tuple[int, str]]]:
    """Return {administration: [(attempt id, status)]} of every administration recorded."""
    out: dict[int, list[tuple[int, str]]] = {}
    for adm, attempt, status in query(store, "SELECT t.administration, t.id, t.status FROM "
                                             "attempts t JOIN episodes e ON e.administration = "
                                             "t.administration ORDER BY t.id"):
        out.setdefault(adm, []).append((attempt, status))
    return out


def _resumed_without_rerunning(store: Path, before: dict[int, list[tuple[int, str]]],
                               planned: int) -> None:
    after = _attempts_of_recorded(store)
    assert len(after) == planned == query(store, "SELECT COUNT(*) FROM episodes")[0][0]
    # every episode recorded before the signal kept its one attempt: it was not run again
    assert {adm: after[adm] for adm in before} == before
    assert all(len(a) == 1 and a[0][1] == "finished" for a in before.values())
    assert query(store, "SELECT COUNT(*) FROM attempts WHERE status = 'started'")[0][0] == 0


def test_ctrl_c_names_the_campaign_command_that_resumes_and_it_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, model_free(name="ctrlc", tasks=HEAVY, seeds="0-14"))
    args = ["campaign", "run", "campaign.toml", "--store", "my store", "--quiet"]
    store = tmp_path / "my store"
    code, err = _stopped(args, lambda: _recorded(store) >= 2, signal.SIGINT, tmp_path)
    assert code == 130, err
    assert err.splitlines() == [
        f"error: interrupted: {KEPT}agm campaign run campaign.toml --store 'my store' --quiet"]
    before = _attempts_of_recorded(store)
    planned = len(plan_campaign(load_campaign(tmp_path / "campaign.toml")).administrations)
    assert 2 <= len(before) < planned

    monkeypatch.chdir(tmp_path)  # the command names paths relative to where it ran
    rerun = run_main(args)
    assert rerun.returncode == 0, rerun.stderr
    _resumed_without_rerunning(store, before, planned)


def test_sigterm_ends_a_process_backend_run_as_ctrl_c_does(tmp_path: Path) -> None:
    file = write(tmp_path, model_free(name="term", tasks=HEAVY, seeds="0-14"))
    store = tmp_path / "s"
    args = ["campaign", "run", str(file), "--store", str(store), "--backend", "process",
            "--workers", "2", "--quiet"]
    code, err = _stopped(args, lambda: _recorded(store) >= 2, signal.SIGTERM, tmp_path)
    assert code == 143, err
    assert err.splitlines() == [
        f"error: interrupted (SIGTERM): {KEPT}agm campaign run {file} --store {store} "
        "--backend process --workers 2 --quiet"]
    # the same cleanup as Ctrl-C: no attempt left `started`, the run's outcome recorded
    assert query(store, "SELECT COUNT(*) FROM attempts WHERE status = 'started'")[0][0] == 0
    assert query(store, "SELECT outcome FROM runs")[0][0].startswith("error: KeyboardInterrupt")


def _slow(body: dict[str, Any]) -> Reply:
    """The careful fake model, answering after 20 ms (an episode takes about 0.1 s)."""
    return {**careful_model(body), "delay": 0.02}


def test_ctrl_c_of_an_llm_run_names_its_store_and_the_command_that_resumes(
        tmp_path: Path) -> None:
    store = tmp_path / "s"
    with FakeOpenAI(itertools.repeat(_slow, 2000)) as srv:
        args = ["run", "comtrade", "--task", "T1_single_page", "--seeds", "0-29",
                "--agent", "llm:fake-model", "--base-url", srv.base_url, "--max-retries", "0",
                "--store", str(store)]
        code, err = _stopped(args, lambda: _recorded(store) >= 2, signal.SIGINT, tmp_path)
        assert code == 130, err
        assert err.splitlines() == [
            f"error: interrupted: the episodes recorded so far are kept in the store {store} "
            "and are not run again; to resume, run the same command: agm run comtrade --task "
            f"T1_single_page --seeds 0-29 --agent llm:fake-model --base-url {srv.base_url} "
            f"--max-retries 0 --store {store}"]
        before = _attempts_of_recorded(store)
        assert 2 <= len(before) < 30
        rerun = run_main(args)
    assert rerun.returncode == 0, rerun.stderr
    _resumed_without_rerunning(store, before, 30)


def test_ctrl_c_of_a_model_free_run_says_it_is_not_recorded(tmp_path: Path) -> None:
    proc = subprocess.Popen([*AGM, "run", "comtrade", "--task", "all", "--seeds", "0-99",
                             "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, cwd=tmp_path)
    assert proc.stdout is not None and proc.stderr is not None
    try:
        first = proc.stdout.readline()  # a row: it is running
        # into a later episode: a signal between a row's printing and its counting (a few
        # microseconds) would count one row fewer than printed
        time.sleep(0.1)
        os.kill(proc.pid, signal.SIGINT)
        out = first + proc.stdout.read()  # through this reader: it holds what it read ahead
        err = proc.stderr.read()
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    rows = len(out.splitlines())
    assert 1 <= rows < 1100  # 11 tasks x 100 seeds
    assert err.splitlines() == [f"interrupted after {rows} of 1100 episodes (a model-free run "
                                "is not recorded: the same command runs every episode again)"]
