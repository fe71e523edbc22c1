"""benchmarks/suite_time.py reads pytest's summaries and /proc/stat the way they are written."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from bench_scripts import load

ROOT = Path(__file__).resolve().parent.parent


def _bench() -> ModuleType:
    return load("suite_time")


def test_each_pytest_summary_is_read_in_order() -> None:
    out = ("....\n2209 passed, 80 warnings in 167.48s (0:02:47)\nSuccess: no issues found\n"
           "..\n============ 2 passed in 22.29s ============\n")
    bench = _bench()
    assert bench.pytest_counts(out) == [{"passed": 2209, "pytest_s": 167.48},
                                        {"passed": 2, "pytest_s": 22.29}]
    assert bench.failures(out) == 0
    assert bench.failures("3 failed, 2206 passed, 1 error in 170.1s") == 4


def test_busy_cpu_leaves_out_idle_and_iowait() -> None:
    # user nice system idle iowait irq softirq steal, in ticks of 1/100 s
    line = "cpu  1000 50 200 9000 300 10 20 5 0 0"
    assert _bench().busy_seconds(line, 100) == (1000 + 50 + 200 + 10 + 20 + 5) / 100


def test_the_parts_are_the_makefiles_targets() -> None:
    text = (ROOT / "Makefile").read_text()
    for _, _, targets in _bench().PARTS:
        for target in targets:
            assert f"\n{target}: $(STAMP)" in text, target


def test_a_failing_part_gives_no_total_and_says_why(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _bench()

    def part(name: str, flags: tuple[str, ...], targets: tuple[str, ...],
             env: dict[str, str]) -> dict[str, object]:
        code = 2 if name == "parallel" else 0
        return {"part": name, "wall_s": 1.0, "busy_cpu_s": 1.0, "returncode": code,
                "pytest": [], "failed": 0}

    monkeypatch.setattr(bench, "run_part", part)
    monkeypatch.setattr(bench, "spin", lambda: 0.05)
    out = tmp_path / "suite_time.json"
    assert bench.main(["--out", str(out)]) == 1
    doc = json.loads(out.read_text())
    assert doc["total_wall_s"] is None and doc["goal_met"] is None and doc["ok"] is False
    assert doc["not_measured"] == "parallel exited 2"
