"""`agm audit inspect` and `agm audit census` show progress on a terminal (stage, samples or
benchmarks done of total, elapsed), as `agm run` does; piped, they write no bar."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.tty import run_in_tty

AGM = Path(sys.executable).with_name("agm")
TOY = (Path(__file__).resolve().parents[1] / "inspect_ext" / "audit" / "tasks"
       / "toy_tasks.py")


def _env() -> dict[str, str]:
    return {**os.environ, "COLUMNS": "80", "TERM": "xterm"}


def test_audit_inspect_draws_its_stages_on_a_terminal(tmp_path: Path) -> None:
    argv = [str(AGM), "audit", "inspect", f"{TOY}@shape_task", "--out", str(tmp_path / "o")]
    code, screen = run_in_tty(argv, env=_env(), cwd=str(tmp_path))
    assert code == 0, screen
    assert "forged outputs scored" in screen and "do-nothing run, samples" in screen
    assert "shape_task" in screen and "…" not in screen  # names whole at 80 columns
    assert "0:00:" in screen  # elapsed time
    piped = subprocess.run([*argv[:-1], str(tmp_path / "p")], env=_env(), capture_output=True,
                           text=True, timeout=300, check=False, cwd=str(tmp_path))
    assert piped.returncode == 0, piped.stderr
    assert "forged outputs scored" not in piped.stderr + piped.stdout


def test_the_census_draws_benchmarks_done_of_total(tmp_path: Path) -> None:
    argv = [str(AGM), "audit", "census", "--tasks", "builtin:comtrade", "--limit", "3",
            "--out", str(tmp_path / "c")]
    code, screen = run_in_tty(argv, env=_env(), cwd=str(tmp_path))
    assert code == 0, screen
    assert "census builtin:comtrade" in screen and "0/1" in screen
    assert "census 1/1:" not in screen  # the bar replaces the plain progress lines
