"""tools/pick_python.py: .venv gets the fastest usable build of python3's version, else python3."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "pick_python.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pick_python", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake(folder: Path, name: str, answer: str | None) -> str:
    """Write an executable that answers the probe with `answer` (None: fails like no venv)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    body = f"echo '{answer}'" if answer is not None else "echo 'No module named venv' >&2; exit 1"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


@pytest.fixture()
def tool(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> ModuleType:
    module = _tool()
    monkeypatch.setattr(module, "EXTRA_DIRS", ())
    monkeypatch.setenv("PATH", f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}")
    return module


def test_a_build_faster_by_more_than_the_margin_is_chosen(tool: ModuleType,
                                                          tmp_path: Path) -> None:
    default = _fake(tmp_path / "a", "python3", "/opt/slow/python3.11 3.11 0.120")
    _fake(tmp_path / "b", "python3.11", "/usr/bin/python3.11 3.11 0.075")
    chosen, timed = tool.pick(default)
    assert chosen == "/usr/bin/python3.11"
    assert timed == [("/usr/bin/python3.11", 0.075), ("/opt/slow/python3.11", 0.120)]


def test_about_equal_builds_keep_the_default(tool: ModuleType, tmp_path: Path) -> None:
    # 0.110 * 1.15 = 0.1265 is not below 0.120: not faster by the margin, so no swap.
    default = _fake(tmp_path / "a", "python3", "/opt/one/python3.11 3.11 0.120")
    _fake(tmp_path / "b", "python3.11", "/usr/bin/python3.11 3.11 0.110")
    assert tool.pick(default)[0] == "/opt/one/python3.11"


def test_another_version_or_a_build_without_venv_is_never_chosen(tool: ModuleType,
                                                                 tmp_path: Path) -> None:
    default = _fake(tmp_path / "a", "python3", "/opt/slow/python3.11 3.11 0.120")
    _fake(tmp_path / "a", "python3.11", None)  # cannot make a venv
    _fake(tmp_path / "b", "python3", "/usr/bin/python3.12 3.12 0.010")  # another version
    chosen, timed = tool.pick(default)
    assert chosen == "/opt/slow/python3.11"
    assert timed == [("/opt/slow/python3.11", 0.120)]


def test_a_default_that_cannot_be_probed_is_returned_as_is(tool: ModuleType,
                                                           tmp_path: Path) -> None:
    default = _fake(tmp_path / "a", "python3", None)
    _fake(tmp_path / "b", "python3.11", "/usr/bin/python3.11 3.11 0.010")
    assert tool.pick(default) == (default, [])


def test_the_real_probe_names_this_interpreter_and_stdout_holds_one_path() -> None:
    # The real probe on the interpreter running the tests (a venv's base can make venvs): its
    # real path, its version and a positive time; then the tool as the Makefile runs it.
    real, version, seconds = _tool()._probe(sys.executable)
    assert real == os.path.realpath(sys.executable)
    assert version == "{}.{}".format(*sys.version_info[:2]) and seconds > 0
    res = subprocess.run([sys.executable, str(TOOL)], capture_output=True, text=True,
                         timeout=120, check=True)
    (line,) = res.stdout.splitlines()
    assert Path(line).is_file() and "pick_python: .venv is made with" in res.stderr


def test_each_build_keeps_its_best_round_so_one_slow_spell_does_not_decide(
        tool: ModuleType, tmp_path: Path) -> None:
    # The faster build is timed in a slow spell first (0.130 s), then at its speed (0.070 s):
    # it keeps 0.070 s and is chosen. Each usable build is timed ROUNDS times, no more.
    default = _fake(tmp_path / "a", "python3", "/opt/slow/python3.11 3.11 0.120")
    count = tmp_path / "count"
    fast = tmp_path / "b" / "python3.11"
    fast.parent.mkdir(parents=True)
    fast.write_text(f"#!/bin/sh\necho x >> {count}\n"
                    f"if [ $(wc -l < {count}) -eq 1 ]; then t=0.130; else t=0.070; fi\n"
                    "echo \"/usr/bin/python3.11 3.11 $t\"\n")
    fast.chmod(0o755)
    chosen, timed = tool.pick(default)
    assert chosen == "/usr/bin/python3.11"
    assert timed == [("/usr/bin/python3.11", 0.070), ("/opt/slow/python3.11", 0.120)]
    assert len(count.read_text().splitlines()) == tool.ROUNDS
