"""On a core-only install (`pip install agentmetrology`, no extra), every command that needs an
optional extra says which in one line, exit 2, never a traceback; the demo needs none.

Each case runs the installed `agm` in a subprocess where the extras' modules cannot be imported
(support/core_only.py), as a user on that install would.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from archive.conftest import write_zip
from support.core_only import blocked_modules, core_distributions, run_core_only

ROOT = Path(__file__).resolve().parents[2]
TINY_CAMPAIGN = """[campaign]
name = "tiny"
profile = "seeded"
tasks = ["T3_duplicates"]
seeds = "0"
levels = ["L2"]
conditions = ["clean"]

[[targets]]
name = "rule"
kind = "rule"
agent = "rule"
"""
HEADER = {"status": "success", "eval": {
    "task": "demo", "model": "mockllm/model", "run_id": "R1",
    "dataset": {"samples": 1, "sample_ids": ["a"]}, "config": {"epochs": 1},
    "scorers": [{"name": "acc"}]}}


def test_the_simulation_blocks_the_extras_and_keeps_the_core() -> None:
    blocked = blocked_modules()
    assert {"inspect_ai", "inspect_evals", "yaml", "zstandard", "pyarrow", "ray", "openenv",
            "scipy"} <= blocked
    assert {"numpy", "typer", "rich", "msgspec", "openai", "mcp"}.isdisjoint(blocked)
    assert "numpy" in core_distributions() and "pyarrow" not in core_distributions()


def _one_line_naming(res: object, extra: str) -> None:
    """Assert a refusal: exit 2, one stderr line naming the extra to install, nothing else."""
    assert res.returncode == 2, res.stderr  # type: ignore[attr-defined]
    lines = res.stderr.splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1, res.stderr  # type: ignore[attr-defined]
    assert "error: " in lines[0] and f"agentmetrology[{extra}]" in lines[0]


def _zstd_eval(tmp: Path) -> Path:
    """Write a small .eval log whose members are zstd-compressed (Inspect's default)."""
    path = tmp / "z.eval"
    write_zip(path, {"header.json": json.dumps(HEADER).encode()}, method=93,
              compress=lambda b: b)
    return path


@pytest.mark.parametrize(("args", "extra"), [
    (("audit", "inspect", "inspect_evals/gsm8k", "--limit", "1", "--out", "o"), "inspect"),
    (("audit", "bfcl", "--limit", "1", "--out", "o"), "bfcl"),
    (("serve", "openenv", "comtrade", "--port", "0"), "openenv"),
    (("stats", "summarize", "rows.parquet", "--value", "score", "--group", "agent"), "parquet"),
    (("campaign", "run", "c.toml", "--store", "st", "--backend", "ray", "--quiet"), "ray"),
])
def test_a_command_needing_an_extra_names_it(tmp_path: Path, args: tuple[str, ...],
                                             extra: str) -> None:
    (tmp_path / "rows.parquet").write_bytes(b"PAR1")
    (tmp_path / "c.toml").write_text(TINY_CAMPAIGN)
    _one_line_naming(run_core_only(tmp_path, *args), extra)
    assert not (tmp_path / "o").exists() and not (tmp_path / "st").exists()


@pytest.mark.parametrize("command", ["archive audit", "view"])
def test_a_zstd_eval_log_names_the_archive_extra(tmp_path: Path, command: str) -> None:
    log = _zstd_eval(tmp_path)
    args = ("--out", "o") if command == "archive audit" else ("--port", "0")
    _one_line_naming(run_core_only(tmp_path, *command.split(), str(log), *args), "archive")


def test_a_store_runs_and_exports_without_extras_but_parquet_names_its_extra(
        tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(TINY_CAMPAIGN)
    ran = run_core_only(tmp_path, "campaign", "run", "c.toml", "--store", "st", "--quiet")
    assert ran.returncode == 0, ran.stderr
    rows = run_core_only(tmp_path, "export", "st")
    assert rows.returncode == 0 and len(rows.stdout.splitlines()) == 1, rows.stderr
    _one_line_naming(run_core_only(tmp_path, "export", "st", "--out", "x.parquet"), "parquet")
    assert not (tmp_path / "x.parquet").exists()
    _one_line_naming(run_core_only(tmp_path, "export", "st", "--format", "inspect", "--out",
                                   "logs"), "inspect")
    assert not (tmp_path / "logs").exists()


def test_the_census_lists_an_inspect_task_as_not_probed(tmp_path: Path) -> None:
    res = run_core_only(tmp_path, "audit", "census", "--tasks", "inspect_evals/gsm8k",
                        "--out", "o")
    assert res.returncode == 0, res.stderr
    assert "not probed: inspect_evals/gsm8k needs inspect-ai" in res.stdout
    assert "Traceback" not in res.stderr


def test_make_demo_runs_on_a_core_only_install(tmp_path: Path) -> None:
    # The demo's own command, read from the Makefile: `make demo` installs only the core.
    (recipe,) = re.findall(r"^demo:.*\n\t\$\(BIN\)/agm (.*)$", (ROOT / "Makefile").read_text(),
                           flags=re.M)
    res = run_core_only(tmp_path, *recipe.split())
    assert res.returncode == 0, res.stderr
    assert "Validity card: comtrade at L2" in res.stdout and "licensed claim" in res.stdout
    assert (tmp_path / "out" / "demo" / "report.html").is_file()
