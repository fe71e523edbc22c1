"""Ctrl-C: attempts in flight end as interrupted, never left `started`; resuming completes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.records.clock import Clock
from agentmetrology.run.campaign import load_campaign, parse_campaign, plan_campaign, run_campaign
from agentmetrology.runtime.rng import rng
from agentmetrology.store import EvidenceStore
from run.campaign.campaign_fixtures import AsyncScripted, model_free, query, with_llm, write


class _CtrlC(AsyncScripted):
    """Presses Ctrl-C (SIGINT to this process) at its second move, mid-episode."""

    moves = 0

    async def act(self, observation: Any) -> Any:
        _CtrlC.moves += 1
        if _CtrlC.moves == 3:
            signal.raise_signal(signal.SIGINT)
        return await super().act(observation)


def test_keyboard_interrupt_marks_in_flight_attempts_interrupted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGM_TEST_KEY", "k" * 20)
    text = with_llm(model_free(tasks='["T3_duplicates"]', seeds="0-1"), concurrency=2)
    config = parse_campaign(text)

    def interrupting(target: LLMTarget, clock: Clock) -> Any:
        return _CtrlC(target, clock)

    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st, \
            pytest.raises(KeyboardInterrupt):
        run_campaign(config, st, policy_factory=interrupting)
    statuses = dict(query(tmp_path / "s", "SELECT status, COUNT(*) FROM attempts GROUP BY "
                                          "status"))
    assert statuses.get("started", 0) == 0 and statuses.get("interrupted", 0) >= 1, statuses
    (detail,) = {d for (d,) in query(tmp_path / "s", "SELECT detail FROM attempts WHERE "
                                                     "status = 'interrupted'")}
    assert detail == "the run stopped (KeyboardInterrupt) before this attempt finished"
    assert query(tmp_path / "s", "SELECT outcome FROM runs")[0][0].startswith(
        "error: KeyboardInterrupt")

    def scripted(target: LLMTarget, clock: Clock) -> Any:
        return AsyncScripted(target, clock)

    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
        result = run_campaign(config, st, policy_factory=scripted)
    assert result.recovered == 0 and result.status.complete
    assert query(tmp_path / "s", "SELECT COUNT(*), COUNT(DISTINCT administration) FROM "
                                 "episodes")[0] == (result.status.total.planned,) * 2


# Heavy tasks (hundreds of rows per page) and enough seeds that five runs, each interrupted at
# most 1 s after its first attempt starts, cannot finish the campaign. The five delays sum to
# 2.27 s; the 2-core machine records about 60 administrations a second with two workers when
# quiet (18.6/s at load 7, so load only widens the margin): the five runs record at most about
# 140 of the 360 planned (4 tasks x 15 seeds x 2 levels x 3 targets), a 2.6x margin, and the
# resume (which dominates the test's time) redoes only the rest. A run that finished before its
# Ctrl-C would exit 0 with nothing to say and fail the test for no fault. Delays from 0.1 s
# reach a run whose workers are still starting; up to 1 s, one amid its episodes.
HEAVY = '["T7_totals_trap", "T1_single_page", "T3_duplicates", "T8_mixed_faults"]'


def _run_command(file: Path, store: Path) -> list[str]:
    return [sys.executable, "-m", "agentmetrology.cli.campaign_cmd", "run", str(file),
            "--store", str(store), "--backend", "process", "--workers", "2", "--quiet"]


def _started(store: Path) -> int:
    try:
        return int(query(store, "SELECT COUNT(*) FROM attempts WHERE status = 'started'")[0][0])
    except sqlite3.OperationalError:
        return 0  # the ledger is not created yet


def test_ctrl_c_on_the_process_backend_ends_fast_with_one_line_every_time(
        tmp_path: Path) -> None:
    file = write(tmp_path, model_free(name="ctrlc", tasks=HEAVY, seeds="0-14"))
    store = tmp_path / "store"
    delays = rng(13, "ctrl-c delays").uniform(0.1, 1.0, size=5)
    for i, delay in enumerate(delays):
        # Ctrl-C in a terminal reaches the whole foreground process group: driver and workers.
        proc = subprocess.Popen(_run_command(file, store),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and proc.poll() is None and not _started(store):
                time.sleep(0.02)
            time.sleep(float(delay))
            assert proc.poll() is None, f"run {i} ended before Ctrl-C"
            os.killpg(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=10)  # a hang fails here
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: interrupted"), (i, err)
        assert "Traceback" not in err and "Exception ignored" not in err
        assert proc.returncode == 130, (i, proc.returncode)
        assert _started(store) == 0, f"run {i} left attempts started"
    statuses = dict(query(store, "SELECT status, COUNT(*) FROM attempts GROUP BY status"))
    assert statuses.get("interrupted", 0) >= 1, statuses

    rerun = subprocess.run(_run_command(file, store), capture_output=True,
                           text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    planned = len(plan_campaign(load_campaign(file)).administrations)
    assert query(store, "SELECT COUNT(*), COUNT(DISTINCT administration) FROM episodes")[0] == (
        planned, planned)
    assert query(store, "SELECT COUNT(*) FROM attempts WHERE status = 'started'")[0][0] == 0
