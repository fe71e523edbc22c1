"""Fuzz `agm stats summarize|compare` with seeded hostile inputs in subprocesses under a
memory cap, each case under a time limit: every run must end with exit 0 or 2, no traceback.

Hypothesis is not a dependency, so inputs come from a seeded generator: the same cases run
every time, and a failure names the case so it can be replayed. Starting Python with numpy
costs most of a second, so each subprocess runs a batch of cases through typer's CliRunner
(which records any uncaught exception), with an alarm per case.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import agentmetrology

MEMORY_CAP = 1 << 30  # 1 GiB of address space per subprocess
TIME_LIMIT = 20  # seconds per case
SEED = 20_261_201
CASES = 30
BATCHES = 2  # one capped process per pool thread: each start (numpy) costs ~0.7 s of CPU
SRC = str(Path(agentmetrology.__file__).resolve().parents[1])
DRIVER = f"""
import json, signal, sys
from typer.testing import CliRunner
from agentmetrology.cli.stats_cmd import stats_app

class Overtime(Exception):
    pass

def _alarm(signum, frame):
    raise Overtime("over {TIME_LIMIT} s")

signal.signal(signal.SIGPROF, _alarm)  # CPU time: load cannot fake a hang
runner = CliRunner()
for case in json.load(open(sys.argv[1])):
    signal.setitimer(signal.ITIMER_PROF, {TIME_LIMIT})
    result = runner.invoke(stats_app, case["args"], env=case["env"])
    signal.setitimer(signal.ITIMER_PROF, 0)
    exc = result.exception
    crash = None if exc is None or isinstance(exc, SystemExit) else repr(exc)[:300]
    print(json.dumps({{"code": result.exit_code, "stderr": result.stderr[-2000:], "crash": crash}}))
"""

# Raw JSON texts for a value: numbers at and beyond float limits, literals json accepts, and
# every wrong type; some are not valid JSON numbers in Python's float (1e400 -> inf).
HOSTILE_VALUES = [
    "0.5",
    "1",
    "0",
    "-0.0",
    "true",
    "false",
    "null",
    '"0.5"',
    '"x"',
    "1e308",
    "-1e308",
    "1e400",
    "-1e400",
    "NaN",
    "Infinity",
    "-Infinity",
    "1" + "0" * 400,
    "9" * 5000,
    "5e-324",
    "1e100",
    "[]",
    "{}",
    '{"a": [1, {"b": 2}]}',
    "[" * 50 + "]" * 50,
    "[" * 50_000 + "]" * 50_000,
]
HOSTILE_LABELS = [
    '"rule"',
    '"llm"',
    '"t1"',
    "null",
    "1",
    "true",
    '"[bold]x[/]"',
    '"' + "w" * 300 + '"',
    '"\\u0000\\u202e"',
    '{"k": "v"}',
]
HOSTILE_NUMBERS = ["0", "-1", "1", "7", "1000000", "1000001", "1000000000", "10" * 15, "x"]
HOSTILE_FLOATS = ["0", "1", "0.5", "-1", "1.5", "nan", "inf", "1e-300", "abc"]


SOFT_FAULTS = [  # excluded and counted, never refused: the run still succeeds
    ', "measurement_failure": "infra_error: 503"',
    ', "termination": "cancelled"',
    ', "measurement_failure": ""',
    ', "measurement_failure": true',
]


def _jsonl(rng: random.Random) -> bytes:
    """Return JSON lines: mostly good rows, many soft faults, and at most a few hostile ones."""
    n = rng.randint(0, 30)
    hostile = set(rng.sample(range(n), k=min(n, rng.choice([0, 0, 0, 1, 1, 2, 3]))))
    lines = []
    for i in range(n):
        value = rng.choice([f"{rng.random():.3f}", "1", "0", "null", "true"])
        agent, task = rng.choice(['"rule"', '"llm"']), rng.choice(['"t1"', '"t2"'])
        status = rng.choice(['"PASS"', '"PASS"', '"FAIL"', '"UNKNOWN"', '"INVALID"', "null", "3"])
        extra = rng.choice(["", "", "", *SOFT_FAULTS])
        if i in hostile:
            what = rng.randrange(3)
            if what == 0:
                value = rng.choice(HOSTILE_VALUES)
            elif what == 1:
                agent = rng.choice(HOSTILE_LABELS)
            else:
                lines.append(rng.choice(["{", "[]", '"x"', "{" * 2000, "\x00", "\ud800"]))
        lines.append(
            f'{{"agent": {agent}, "task": {task}, "seed": {i // 4}, '
            f'"ground_truth": {{"f1": {value}, "status": {status}}}{extra}}}'
        )
    return "\n".join(lines).encode("utf-8", "surrogatepass")


def _csv(rng: random.Random) -> bytes:
    """Return CSV: mostly good rows and blanks, at most a few hostile cells or ragged rows."""
    cells = ["nan", "inf", "-1e400", "1e308", "x", '"', "\x00", "1,2", "true"]
    rows = ["agent,task,seed,ground_truth.f1,ground_truth.status"]
    n = rng.randint(0, 25)
    hostile = set(rng.sample(range(n), k=min(n, rng.choice([0, 0, 1, 2]))))
    for i in range(n):
        value = rng.choice([f"{rng.random():.2f}", "1", "", "NA", "null"])
        status = rng.choice(["PASS", "FAIL", "UNKNOWN", "", "invalid"])
        row = [rng.choice(["rule", "llm", "[x]"]), rng.choice(["t1", "t2"]), str(i // 4)]
        row += [rng.choice(cells) if i in hostile else value, status]
        if i in hostile and rng.random() < 0.3:
            row = row[: rng.randint(1, 4)]
        rows.append(",".join(row))
    return "\n".join(rows).encode("utf-8")


def _garbage(rng: random.Random) -> bytes:
    """Return random bytes (often not UTF-8), or the empty file."""
    return rng.choice([b"", b"\xef\xbb\xbf", bytes(rng.getrandbits(8) for _ in range(200))])


GENERATORS: list[tuple[str, Callable[[random.Random], bytes]]] = [
    (".jsonl", _jsonl),
    (".jsonl", _jsonl),
    (".json", lambda rng: b"[" + _jsonl(rng).replace(b"\n", b",") + b"]"),
    (".csv", _csv),
    (".jsonl", _jsonl),
    (".csv", _csv),
    (".bin", _garbage),
    (".parquet", _garbage),
]


def _options(rng: random.Random, command: str) -> list[str]:
    """Return a random subset of hostile option values."""
    opts = []
    choices: list[tuple[str, list[str]]] = [
        ("--resamples", HOSTILE_NUMBERS),
        ("--analysis-seed", HOSTILE_NUMBERS),
        ("--confidence", HOSTILE_FLOATS),
        ("--tau", HOSTILE_FLOATS),
    ]
    if command == "compare":
        choices += [("--draws", HOSTILE_NUMBERS), ("--margin", HOSTILE_FLOATS)]
    else:
        choices += [("--alpha", HOSTILE_FLOATS)]
    for flag, values in choices:
        if rng.random() < 0.15:
            opts += [flag, rng.choice(values)]
    return opts


def _case(index: int, tmp: Path) -> dict[str, Any]:
    """Return the argv and environment of case `index` (its inputs written under `tmp`)."""
    rng = random.Random(SEED * 1000 + index)
    suffix, make = GENERATORS[index % len(GENERATORS)]
    path = tmp / f"case{index}{suffix}"
    path.write_bytes(make(rng))
    value = rng.choice(["ground_truth.f1"] * 6 + ["seed", "agent", "nope"])
    command = "summarize" if index % 2 == 0 else "compare"
    if command == "summarize":
        args = ["summarize", str(path), "--value", value, "--group"]
        args.append(rng.choice(["agent", "agent,task", "task", "ground_truth"]))
    else:
        args = ["compare", str(path), "--value", value, "--group", "agent"]
        args += [
            "--a",
            "rule",
            "--b",
            "llm",
            "--pair-by",
            rng.choice(["task,seed", "task,seed", "seed"]),
        ]
        if rng.random() < 0.5:
            args += ["--cluster", "task"]
    args += _options(rng, command)
    if rng.random() < 0.5:
        args.append("--json")
    return {"args": args, "env": {"COLUMNS": rng.choice(["20", "80", "200", "x"])}}


def _limit() -> None:
    """Cap the child's address space (runs in the child before exec)."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _run_batch(batch: list[dict[str, Any]], path: Path) -> list[dict[str, Any]]:
    """Run a batch of cases in one capped subprocess; return one result per case."""
    path.write_text(json.dumps(batch), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": SRC}
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    try:
        proc = subprocess.run(
            [sys.executable, "-c", DRIVER, str(path)],
            env=env,
            capture_output=True,
            timeout=TIME_LIMIT * len(batch) + 30,
            preexec_fn=_limit,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return [{"code": "timeout", "stderr": "", "crash": None}] * len(batch)
    results = [json.loads(line) for line in proc.stdout.decode().splitlines() if line]
    if proc.returncode != 0 or len(results) != len(batch):
        # The driver itself died (e.g. killed by the memory cap): blame the next case.
        lost = {"code": proc.returncode, "stderr": proc.stderr.decode()[-2000:], "crash": "died"}
        results += [lost] * (len(batch) - len(results))
    return results


def test_hostile_inputs_never_crash(tmp_path: Path) -> None:
    cases = [_case(i, tmp_path) for i in range(CASES)]
    # The worst cases named in the issue, always included.
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"agent": "rule", "x": ' + "[" * 200_000 + "]" * 200_000 + "}\n")
    huge = ["--value", "ground_truth.f1", "--group", "agent", "--resamples", "1000000000"]
    cases += [
        {"args": ["summarize", str(deep), "--value", "x", "--group", "agent"], "env": {}},
        {"args": ["summarize", str(tmp_path / "case0.jsonl"), *huge], "env": {}},
    ]
    batches = [cases[i::BATCHES] for i in range(BATCHES)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outputs = list(
            pool.map(
                lambda ib: _run_batch(ib[1], tmp_path / f"batch{ib[0]}.json"), enumerate(batches)
            )
        )
    failures = []
    for batch, results in zip(batches, outputs, strict=True):
        for case, result in zip(batch, results, strict=True):
            bad_code = result["code"] not in (0, 2)
            if bad_code or result["crash"] or "Traceback" in result["stderr"]:
                failures.append({"args": case["args"], **result})
    assert not failures, json.dumps(failures, indent=1)[:4000]
    # The generator reaches both outcomes: some inputs are usable, most are refused.
    codes = {r["code"] for results in outputs for r in results}
    assert codes == {0, 2}
