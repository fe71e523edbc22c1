"""A forked worker ends with the process that forked it, even when that one is killed outright."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# The parent forks a worker that would sleep for a minute, prints the worker's pid, and waits;
# the test kills the parent with SIGKILL (no shutdown runs) and watches the worker.
_PARENT = """
import os, sys, time
from agentmetrology.store.forked import die_with_parent
parent = os.getpid()
pid = os.fork()
if pid == 0:
    if sys.argv[1] == "guarded":
        die_with_parent(parent)
    time.sleep(60)
    os._exit(0)
print(pid, flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def _worker_after_parent_killed(mode: str) -> tuple[int, bool]:
    proc = subprocess.Popen([sys.executable, "-c", _PARENT, mode], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    worker = int(proc.stdout.readline())
    time.sleep(0.3)  # the worker has made its request
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return worker, _alive(worker)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_guarded_worker_dies_with_its_killed_parent() -> None:
    _, alive = _worker_after_parent_killed("guarded")
    assert not alive


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_an_unguarded_worker_outlives_it() -> None:  # the control: the guard is what ends it
    worker, alive = _worker_after_parent_killed("unguarded")
    try:
        assert alive
    finally:
        os.kill(worker, signal.SIGKILL)


def test_the_audits_helpers_give_way_to_it(tmp_path: Path) -> None:
    """A reader process of an archive import and the audit's ledger half run HELPER_NICENESS
    below the audit (capped at 19, as the kernel caps it); a pool's worker does not."""
    from agentmetrology.archive.importers import agm_ahead
    from agentmetrology.store.blobs import BlobStore
    from agentmetrology.store.forked import HELPER_NICENESS, forked_pool

    mine = os.nice(0)
    want = min(19, mine + HELPER_NICENESS)
    with forked_pool(1, agm_ahead._start, (BlobStore(tmp_path), None)) as pool:
        assert pool.submit(os.nice, 0).result() == want
    with forked_pool(1) as pool:
        assert pool.submit(os.nice, 0).result() == mine


@pytest.mark.parametrize("give_way", [True, False])
def test_the_ledger_half_gives_way_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   give_way: bool) -> None:
    """`agm archive audit` asks it to (cli.archive_cmd); a status or verify split does not."""
    from agentmetrology.store import verify_ahead
    from agentmetrology.store.forked import HELPER_NICENESS

    seen = tmp_path / "nice"

    def half(*args: object) -> None:  # runs in the forked half: say its niceness
        seen.write_text(str(os.nice(0)))

    monkeypatch.setattr(verify_ahead, "ledger_half", half)
    with verify_ahead.LedgerAhead(tmp_path, give_way=give_way) as ahead:
        assert ahead.result() is None
    mine = os.nice(0)
    assert int(seen.read_text()) == (min(19, mine + HELPER_NICENESS) if give_way else mine)
