"""Crash and resume: `kill -9` of a running `campaign run`, then the same command completes it.

Which processes: the killed run is a real process (what `kill -9` ends, with its worker pool);
the rerun runs the same command through `cli.main.main` in this process
(`support.agm_runs.run_main`: the same argv, stdout, stderr and exit code), which saves ~0.5 s
of imports.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
import time
from pathlib import Path

from agentmetrology.run.campaign import load_campaign, plan_campaign
from run.campaign.campaign_fixtures import kill_9_when, model_free, query, write
from support.agm_runs import run_main

# Heavy tasks (hundreds of rows per page) so that the run lasts a few seconds.
TASKS = '["T7_totals_trap", "T1_single_page", "T3_duplicates", "T8_mixed_faults"]'


def _args(file: Path, store: Path) -> list[str]:
    return ["campaign", "run", str(file), "--store", str(store), "--backend", "process",
            "--workers", "2", "--quiet"]


def _command(file: Path, store: Path) -> list[str]:
    """The killed run: `campaign run` in a process of its own."""
    return [sys.executable, "-m", "agentmetrology.cli.campaign_cmd", *_args(file, store)[1:]]


def _counts(store: Path) -> tuple[int, int]:
    try:
        rows = query(store, "SELECT (SELECT COUNT(*) FROM episodes), "
                            "(SELECT COUNT(*) FROM attempts WHERE status = 'started')")
    except sqlite3.OperationalError:
        return 0, 0  # the ledger is not created yet
    return rows[0][0], rows[0][1]


def _group_gone(pgid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_kill_9_then_rerun_records_every_key_exactly_once(tmp_path: Path) -> None:
    file = write(tmp_path, model_free(name="killme", tasks=TASKS, seeds="0-5"))
    store = tmp_path / "store"
    def ready() -> bool:
        done, started = _counts(store)
        return done >= 8 and started >= 1

    pid = kill_9_when(_command(file, store), ready)
    # The pool's workers and forkserver notice the driver is gone and exit by themselves.
    gone = _group_gone(pid, timeout=10)
    if not gone:
        os.killpg(pid, signal.SIGKILL)
    assert gone, "worker processes outlived the killed driver"
    done_at_kill, _ = _counts(store)
    planned = len(plan_campaign(load_campaign(file)).administrations)
    assert 0 < done_at_kill < planned

    rerun = run_main(_args(file, store))
    assert rerun.returncode == 0, rerun.stderr

    keys = {p.key for p in plan_campaign(load_campaign(file)).administrations}
    recorded = query(store, "SELECT a.campaign, a.target, a.task, a.seed, a.condition, a.level, "
                            "a.repeat FROM episodes e JOIN administrations a "
                            "ON a.id = e.administration")
    assert len(recorded) == len(set(recorded)) == len(keys) == planned
    assert {tuple(k.__getattribute__(f) for f in ("campaign", "target", "task", "seed",
                                                  "condition", "level", "repeat"))
            for k in keys} == set(recorded)
    statuses = dict(query(store, "SELECT status, COUNT(*) FROM attempts GROUP BY status"))
    assert statuses.get("interrupted", 0) >= 1, statuses  # kept, not replaced
    assert statuses.get("started", 0) == 0 and statuses.get("failed", 0) == 0
    assert statuses["finished"] == planned
    # Every interrupted administration was completed by a later attempt.
    assert query(store, "SELECT COUNT(*) FROM attempts t WHERE t.status = 'interrupted' AND "
                        "NOT EXISTS (SELECT 1 FROM attempts u WHERE u.administration = "
                        "t.administration AND u.status = 'finished' AND u.id > t.id)")[0][0] == 0
    runs = query(store, "SELECT ended_at, outcome FROM runs ORDER BY id")
    assert runs[0] == (None, None) and runs[-1][1] == "finished"
