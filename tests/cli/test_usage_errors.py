"""A command-line mistake is one line naming what was wrong, exit 2 (as every other error)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

AGM = Path(sys.executable).with_name("agm")  # the installed entry point, as a user runs it


def agm_process(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(AGM), *args], capture_output=True, text=True, timeout=120,
                          check=False, env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize(("args", "line"), [
    (["run", "--tasks", "x"], "error: agm run: No such option: --tasks (Possible options: "
                              "--task, --task-arg) (see 'agm run --help')"),
    (["cases", "admit"], "error: agm cases admit: Missing argument 'CASE_ID'. "
                         "(see 'agm cases admit --help')"),
    (["audit", "census", "--limit", "0"], "error: agm audit census: Invalid value for "
                                          "'--limit': 0 is not in the range x>=1. "
                                          "(see 'agm audit census --help')"),
    # click's ranges let NaN through (every comparison with it is false): cli.args.finite
    (["archive", "leaderboard", "x.json", "--out", "o", "--tie-tolerance", "nan"],
     "error: agm archive leaderboard: Invalid value for '--tie-tolerance': nan is not a "
     "finite number. (see 'agm archive leaderboard --help')"),
    (["audit", "comtrade", "--scorer-timeout", "nan"],
     "error: agm audit: Invalid value for '--scorer-timeout': nan is not a finite number. "
     "(see 'agm audit --help')"),
    (["audit", "census", "--task-timeout", "NaN"],
     "error: agm audit census: Invalid value for '--task-timeout': nan is not a finite "
     "number. (see 'agm audit census --help')"),
    # seeds and repeats past SQLite's integers: an OverflowError traceback (cli.args.seed_value)
    (["cases", "propose", "--store", "s", "--campaign", "c", "--target", "t", "--task", "x",
      "--seed", str(2**64)],
     f"error: agm cases propose: Invalid value for '--seed': {2**64} is outside 0 .. 2**63-1. "
     "(see 'agm cases propose --help')"),
    (["serve", "mcp", "comtrade", "--task", "T3_duplicates", "--repeat", str(2**63)],
     f"error: agm serve mcp: Invalid value for '--repeat': {2**63} is outside 0 .. 2**63-1. "
     "(see 'agm serve mcp --help')"),
    (["truth", "comtrade", "--task", "T3_duplicates", "--seed", str(2**63)],
     f"error: agm truth: Invalid value for '--seed': {2**63} is outside 0 .. 2**63-1. "
     "(see 'agm truth --help')"),
    # an empty list ran the whole default census (31 benchmarks), as if --tasks were not given
    (["audit", "census", "--tasks", "", "--out", "/nonexistent/census"],
     "error: --tasks names no benchmark"),
    # a count with no ceiling ran for ever
    (["demo", "--seeds", str(10**30)],
     f"error: agm demo: Invalid value for '--seeds': {10**30} is not in the range "
     "1<=x<=100000. (see 'agm demo --help')"),
])
def test_a_usage_mistake_is_one_line(args: list[str], line: str) -> None:
    res = agm_process(*args)
    assert res.returncode == 2
    assert res.stderr == line + "\n"
    assert res.stdout == ""


def test_a_group_alone_still_shows_its_help() -> None:
    res = agm_process("stats")
    assert res.returncode == 2 and "Usage: agm stats [OPTIONS] COMMAND" in res.stderr


def test_help_and_version_exit_zero() -> None:
    assert agm_process("--version").stdout == "agm 0.1.0\n"
    res = agm_process("envs", "--help")
    assert res.returncode == 0 and res.stdout.startswith("Usage: agm envs")


def test_an_error_names_the_model_as_typed_not_the_agent_it_became(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    res = subprocess.run([str(AGM), "run", "comtrade", "--task", "T3_duplicates", "--model",
                          "openai/gpt-4o-mini"], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120, check=False)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == ("error: --model openai/gpt-4o-mini: the endpoint api.openai.com needs "
                          "an API key and OPENAI_API_KEY is not set; export it, name another "
                          "variable with --api-key-env, or point --base-url at your server\n")
    assert not (tmp_path / ".agm").exists()  # nothing ran, no store was made
