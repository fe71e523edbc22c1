"""`make test` runs the serial modules by path (the Makefile's list is conftest's list) and
hands modules to xdist workers slowest first."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import SERIAL_MODULES, SLOW_MODULES, _rank, pytest_collection_modifyitems

ROOT = Path(__file__).resolve().parent.parent


def test_the_makefile_runs_exactly_the_serial_modules() -> None:
    text = (ROOT / "Makefile").read_text()
    (listed,) = re.findall(r"^SERIAL_TESTS := (.*)$", text, flags=re.M)
    assert tuple(listed.split()) == SERIAL_MODULES
    assert "$(BIN)/pytest -m serial $(SERIAL_TESTS)" in text
    assert all((ROOT / m).is_file() for m in SERIAL_MODULES)


def test_xdist_keeps_the_slow_first_order(pytestconfig: pytest.Config) -> None:
    # xdist's loadscope re-sorts modules by test count unless loadscopereorder is off; conftest
    # turns it off, so the order below is the order workers get modules in.
    assert getattr(pytestconfig.option, "loadscopereorder", False) is False
    assert [m for m in SLOW_MODULES if not (ROOT / m).is_file()] == []
    assert SLOW_MODULES[0] == "tests/run/campaign/test_campaign_ray_llm.py"


class Item:
    """The two things conftest's collection hooks read of a test item (and the mark they add)."""

    def __init__(self, nodeid: str, marks: tuple[str, ...] = ()) -> None:
        self.nodeid, self.marks = nodeid, list(marks)

    def get_closest_marker(self, name: str) -> str | None:
        return name if name in self.marks else None

    def add_marker(self, mark: pytest.MarkDecorator) -> None:
        self.marks.append(mark.name)


def test_slow_modules_rank_first_in_their_listed_order() -> None:
    ranks = [_rank(Item(f"{m}::t")) for m in SLOW_MODULES]  # type: ignore[arg-type]
    assert ranks == list(range(len(SLOW_MODULES)))
    assert _rank(Item("tests/other/test_x.py::t")) == len(SLOW_MODULES) + 1  # type: ignore


def test_a_test_marked_serial_by_hand_is_refused_at_collection() -> None:
    # It would be deselected by `-m "not serial"` and never collected by the serial run.
    listed = Item(f"{SERIAL_MODULES[0]}::t")
    pytest_collection_modifyitems([listed])  # type: ignore[list-item]
    assert listed.marks == ["serial"]
    with pytest.raises(pytest.UsageError, match=re.escape("tests/other/test_x.py::t")):
        pytest_collection_modifyitems(
            [Item("tests/other/test_x.py::t", ("serial",))])  # type: ignore[list-item]


def _dry_run(folder: Path, target: str) -> list[str]:
    """Return the commands `make -n TARGET` would run in `folder` (nothing is installed)."""
    res = subprocess.run(["make", "-n", "--no-print-directory", target], cwd=folder,
                         capture_output=True, text=True, check=True, timeout=60)
    return res.stdout.splitlines()


def _stamp(folder: Path, name: str) -> None:
    """Leave stamp `name` in .venv, newer than pyproject.toml (as an install leaves it)."""
    (folder / ".venv" / "bin").mkdir(parents=True, exist_ok=True)
    stamp = folder / ".venv" / name
    stamp.touch()
    later = (folder / "pyproject.toml").stat().st_mtime + 10
    os.utime(stamp, (later, later))


def test_make_demo_installs_the_core_alone_and_make_test_then_adds_the_extras(
        tmp_path: Path) -> None:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    demo = _dry_run(tmp_path, "demo")
    assert ".venv/bin/pip install -q -e ." in demo
    assert not any("-e '.[" in line or "bfcl-eval" in line for line in demo)
    assert demo[-1] == ".venv/bin/agm audit comtrade --out out/demo"
    _stamp(tmp_path, ".installed-core")  # after `make demo`
    test = _dry_run(tmp_path, "test")
    assert test[0] == ".venv/bin/pip install -q -e '.[dev,inspect,ray,openenv,verifiers]'"
    assert ".venv/bin/pip install -q -e ." not in test and "-m venv" not in " ".join(test)
    _stamp(tmp_path, ".installed")  # after `make test`
    assert _dry_run(tmp_path, "demo") == [".venv/bin/agm audit comtrade --out out/demo"]
    assert _dry_run(tmp_path, "test-lint") == [
        ".venv/bin/ruff check src tests benchmarks tools"]


def test_a_fresh_make_test_makes_the_core_install_first(tmp_path: Path) -> None:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    test = _dry_run(tmp_path, "test")
    core = test.index(".venv/bin/pip install -q -e .")
    assert "-m venv .venv" in test[0]
    assert test[core + 2] == ".venv/bin/pip install -q -e '.[dev,inspect,ray,openenv,verifiers]'"
