"""`agm campaign run --backend ray` as a process: a `kill -9` of the driver loses nothing and
duplicates nothing, Ctrl-C ends a run on its own local instance cleanly, bad Ray flags are
refused in one line with nothing on disk. (The in-process Ray tests: test_campaign_ray_llm.py.)"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from campaign.campaign_fixtures import kill_9_when, query, write
from campaign.ray_fixtures import (
    KEY,
    PLANNED,
    ledger_invariants,
    llm_campaign,
    ray_instance,
    slow_model,
)
from support.fake_openai import FakeOpenAI

__all__ = ["ray_instance"]  # the module-scoped fixture, used by name


def _cli(file: Path, store: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "agentmetrology.cli.campaign_cmd", "run", str(file),
            "--store", str(store), "--quiet", "--backend", "ray", *extra]


def test_kill_9_of_the_driver_then_the_same_command_completes_exactly_once(
        ray_instance: tuple[str, Path], tmp_path: Path) -> None:
    address, _ = ray_instance
    store = tmp_path / "s"
    with FakeOpenAI(itertools.repeat(slow_model, 5000)) as srv:
        file = write(tmp_path, llm_campaign(srv.base_url, name="killed-driver"))
        # The driver attaches to the module's instance (--ray-address): its actors die with it.
        cmd = _cli(file, store, "--ray-address", address, "--ray-actors", "2",
                   "--ray-concurrency", "2")
        kill_9_when(cmd, lambda: _recorded(store) >= 5)
        time.sleep(0.3)  # the actors die with their driver; the server answers what it had
        killed = ledger_invariants(store)
        running = killed["started"]
        assert killed["episodes"] < PLANNED and 1 <= running <= 4
        assert killed["billable"] == killed["billable_distinct"]
        assert len(srv.requests) - killed["billable"] <= running  # one in flight per episode
        rerun = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert rerun.returncode == 0, rerun.stderr
        served = len(srv.requests)
    after = ledger_invariants(store)
    assert after["episodes"] == after["keys_with_episode"] == PLANNED and after["started"] == 0
    assert query(store, "SELECT COUNT(*) FROM attempts WHERE status = 'interrupted'") \
        == [(running,)]
    # Every request the server answered is billed at most once; the killed attempts' ones stay.
    assert after["billable"] == after["billable_distinct"]
    assert served - after["billable"] <= running
    assert after["billable"] - after["recorded_requests"] == killed["billable"] \
        - killed["recorded_requests"]


def _recorded(store: Path) -> int:
    try:
        return int(query(store, "SELECT COUNT(*) FROM episodes")[0][0])
    except Exception:  # the ledger is not created yet
        return 0


@pytest.mark.parametrize(("address", "message"), [
    ("127.0.0.1:1", "error: cannot connect to the Ray cluster at 127.0.0.1:1"),
    ("not an address", "error: --ray-address 'not an address' is not a Ray address"),
])
def test_a_bad_ray_address_is_refused_with_one_line_and_nothing_on_disk(
        tmp_path: Path, address: str, message: str) -> None:
    file = write(tmp_path, llm_campaign("http://127.0.0.1:9/v1"))
    env = {**os.environ, "AGM_RAY_TEST_KEY": KEY}
    res = subprocess.run(_cli(file, tmp_path / "s", "--ray-address", address),
                         capture_output=True, text=True, timeout=60, env=env)
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith(message) and res.stderr.count("\n") == 1, res.stderr
    assert not (tmp_path / "s").exists()


def test_ray_flags_need_the_ray_backend(tmp_path: Path) -> None:
    file = write(tmp_path, llm_campaign("http://127.0.0.1:9/v1"))
    cmd = _cli(file, tmp_path / "s", "--ray-actors", "2")
    cmd[cmd.index("ray")] = "inline"
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "AGM_RAY_TEST_KEY": KEY})
    assert res.returncode == 2
    assert res.stderr == "error: --ray-address, --ray-actors and --ray-concurrency need " \
                         "--backend ray\n"
    assert not (tmp_path / "s").exists()


def test_ctrl_c_on_a_local_instance_ends_cleanly_with_attempts_interrupted(
        ray_instance: tuple[str, Path], tmp_path: Path) -> None:
    # The default: the run starts its own local instance, whose processes share the
    # terminal's process group and get the Ctrl-C too.
    store = tmp_path / "s"
    with FakeOpenAI(itertools.repeat(slow_model, 5000)) as srv:
        file = write(tmp_path, llm_campaign(srv.base_url, name="ctrl-c"))
        proc = subprocess.Popen(_cli(file, store), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and proc.poll() is None and _recorded(store) < 3:
                time.sleep(0.02)
            assert proc.poll() is None
            os.killpg(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        assert proc.returncode == 130
        assert err.splitlines()[-1] == ("error: interrupted: attempts in flight stay recorded "
                                        "as interrupted; run the same command to resume")
        assert "Traceback" not in err
    # The attempts in flight ended interrupted (none left started), each answered request once;
    # resuming from here is what the kill -9 test checks.
    stopped = ledger_invariants(store)
    assert stopped["started"] == 0 and 3 <= stopped["episodes"] < PLANNED
    assert query(store, "SELECT COUNT(*) FROM attempts WHERE status = 'interrupted'")[0][0] >= 1
    assert stopped["billable"] == stopped["billable_distinct"]
