"""`agm` runs numpy's BLAS on one thread unless the user asks for more (cli.main)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentmetrology.cli.main import main


def _run_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["agm", "--version"])
    try:
        main()
    except SystemExit as exc:
        assert exc.code in (0, None)


def test_one_thread_by_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "undo-restores-the-original")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    _run_version(monkeypatch)
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"


def test_the_users_choice_stands(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    _run_version(monkeypatch)
    assert os.environ["OPENBLAS_NUM_THREADS"] == "4"


def test_a_command_that_imports_numpy_starts_one_blas_thread(tmp_path: Path) -> None:
    # The variable must be set before numpy loads: count OpenBLAS's threads in a real run.
    code = ("import sys, os; sys.argv = ['agm', 'envs']; from agentmetrology.cli.main import "
            "main\ntry:\n    main()\nexcept SystemExit:\n    pass\nimport numpy\n"
            "from numpy._core import _multiarray_umath\n"
            "print(len(os.listdir('/proc/self/task')), file=sys.stderr)")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                         capture_output=True, text=True, check=True)
    assert int(out.stderr.strip().splitlines()[-1]) == 1
