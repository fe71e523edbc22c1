"""The console script ends without freeing a heap a command kept (cli.heap_exit): the same exit
code, output and files as a normal exit, and a normal exit whenever that could lose anything."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agentmetrology.cli import heap_exit
from archive.agm_fixtures import RECORDED, build_store
from support.agm_runs import AGM

_SCRIPT = """
import atexit, sys, threading
from agentmetrology.cli import heap_exit
heap_exit.arm()
heap_exit.keep([1, 2, 3])
atexit.register(lambda: print("handler ran", flush=True))
if sys.argv[1] == "thread":
    stop = threading.Event()
    t = threading.Thread(target=lambda: (stop.wait(0.5), print("thread joined")))
    t.start()
print("buffered out", end="")
print("buffered err", end="", file=sys.stderr)
heap_exit.end(int(sys.argv[2]))
print(" returned")
sys.exit(int(sys.argv[2]))
"""


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _SCRIPT, *args], capture_output=True,
                          text=True, check=False, timeout=60)


def test_end_flushes_runs_the_exit_handlers_and_keeps_the_code() -> None:
    proc = _run("alone", "3")
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        3, "buffered outhandler ran\n", "buffered err")


def test_end_returns_while_another_thread_runs() -> None:
    """A thread still running is joined by the normal exit, never cut off."""
    proc = _run("thread", "4")
    assert proc.returncode == 4
    assert proc.stdout == "buffered out returned\nthread joined\nhandler ran\n"


def test_nothing_is_kept_unless_armed_and_end_returns() -> None:
    """In-process callers (tests, `main()`) keep nothing, and `end` then returns."""
    assert not heap_exit._armed
    heap_exit.keep(object())
    assert heap_exit._kept == []
    heap_exit.end(0)  # returns: nothing was kept
    assert threading.active_count() >= 1


def test_archive_audit_through_the_console_script(tmp_path: Path) -> None:
    """`agm archive audit` keeps its heap: exit 0, the whole --json on stdout, every file
    written, as a normal exit gives (`main()` run the same way, compared byte for byte)."""
    store = build_store(tmp_path / "store")
    outs = []
    for name, argv in (("entry", AGM), ("main", [sys.executable, "-c",
                       "from agentmetrology.cli.main import main; main()"])):
        out = tmp_path / name
        proc = subprocess.run([*argv, "archive", "audit", str(store), "--out", str(out),
                               "--json"], capture_output=True, text=True, check=False,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["archive"]["episodes"] == RECORDED
        outs.append((proc.stdout.replace(str(out), "OUT"),
                     [(out / f).read_bytes() for f in ("archive.json", "report.md",
                                                       "report.html")]))
    assert outs[0] == outs[1]


def test_archive_audit_keeps_its_heap_when_armed(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """What the console script then does not free: the archive and the audit's documents."""
    from typer.testing import CliRunner

    from agentmetrology.cli.archive_cmd import archive_app

    store = build_store(tmp_path / "store")
    monkeypatch.setattr(heap_exit, "_armed", True)
    monkeypatch.setattr(heap_exit, "_kept", [])
    res = CliRunner().invoke(archive_app, ["audit", str(store), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    kinds = [type(x).__name__ for x in heap_exit._kept]
    assert kinds == ["Archive", "dict", "dict"]
