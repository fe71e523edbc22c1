"""Print the interpreter `make` builds .venv with: the fastest usable build of python3's version.

A machine can hold several builds of one Python version, and they differ in speed: this
project's machines have pyenv's 3.11 first on PATH, built without profile-guided optimisation,
and Debian's /usr/bin/python3.11, on which the test suite takes about 20% less time and CPU
(docs/testing.md). Build flags do not tell them apart (sysconfig reports a profile-use flag for
pyenv's build and none for Debian's), so each candidate is timed on the same small workload.

Only builds of the version `python3` on PATH is (the one `make` used before it looked) that can
make a virtual environment (venv and ensurepip import) are candidates. The default stays unless
another is faster by more than MARGIN, so two builds of about equal speed never swap from one
run to the next. The choice and the timings go to stderr; stdout holds the path alone.
Usage: `python3 tools/pick_python.py` (the Makefile's default for PY; `make PY=...` overrides).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

MARGIN = 1.15  # another build must be this many times faster than the default to be taken
ROUNDS = 5  # each build is timed once per round, the builds in turn; its best round counts
EXTRA_DIRS = ("/usr/bin", "/usr/local/bin")  # often behind a version manager's shims on PATH

# Prints the interpreter's real path and version, then the best of three timings of a fixed
# mix of what the suite spends its time on: integer loops, objects made and sorted, canonical
# JSON. (Calls alone differ by about 10% between the two builds above; this mix took 0.073-0.080 s
# on Debian's and 0.118-0.124 s on pyenv's on one machine, 0.038-0.060 s and 0.056-0.087 s on
# a noisier one, where in a single round the faster one now and then missed the margin.)
PROBE = """
import json, os, sys, time
import ensurepip, venv
class P:
    __slots__ = ("a", "b")
    def __init__(self, a, b):
        self.a, self.b = a, b
def work():
    x = 0
    for i in range(300_000):
        x += i
    sorted((P(i, str(i)) for i in range(60_000)), key=lambda p: p.b)
    doc = {"a": [1, 2.5, "x"] * 20, "b": {"c": None, "d": True}}
    for _ in range(1_000):
        json.loads(json.dumps(doc, sort_keys=True))
best = 9e9
for _ in range(3):
    t = time.perf_counter()
    work()
    best = min(best, time.perf_counter() - t)
print(os.path.realpath(sys.executable), "%d.%d" % sys.version_info[:2], best)
"""


def _candidates(version: str) -> list[str]:
    """Return the executables that may be builds of `version`, PATH order first."""
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    dirs += [d for d in EXTRA_DIRS if d not in dirs]
    found: list[str] = []
    for d in dirs:
        for name in (f"python{version}", "python3"):
            path = Path(d) / name
            try:
                usable = path.is_file() and os.access(path, os.X_OK)
            except OSError:  # a PATH folder this user cannot read
                usable = False
            if usable and str(path) not in found:
                found.append(str(path))
    return found


def _probe(exe: str) -> tuple[str, str, float] | None:
    """Return (real path, version, seconds) of `exe`, or None if it cannot make a venv."""
    try:
        out = subprocess.run([exe, "-c", PROBE], capture_output=True, text=True, timeout=60,
                             check=True).stdout.split()
        return out[0], out[1], float(out[2])
    except (OSError, subprocess.SubprocessError, IndexError, ValueError):
        return None


def pick(default: str) -> tuple[str, list[tuple[str, float]]]:
    """Return the chosen interpreter and the (path, seconds) of every usable build timed."""
    first = _probe(default)
    if first is None:
        return default, []
    real, version, base = first
    timed: dict[str, float] = {real: base}
    run_as: dict[str, str] = {real: default}  # real path -> the name it was timed through
    for exe in _candidates(version):
        if os.path.realpath(exe) in timed:  # the default again, through another name
            continue
        got = _probe(exe)
        if got is not None and got[1] == version and got[0] not in timed:
            timed[got[0]] = got[2]
            run_as[got[0]] = exe
    # A shared machine's speed drifts by half from one second to the next (0.038-0.060 s for
    # one build in four runs): the builds take turns, so a slow spell hits each alike, and each
    # keeps its fastest round, the one least disturbed.
    rounds = ROUNDS - 1 if len(timed) > 1 else 0  # one build alone has nothing to beat
    for _ in range(rounds):
        for path in timed:
            again = _probe(run_as[path])
            if again is not None:
                timed[path] = min(timed[path], again[2])
    base = timed[real]
    best = min(timed, key=lambda p: timed[p])
    chosen = best if timed[best] * MARGIN < base else real
    return chosen, sorted(timed.items(), key=lambda kv: kv[1])


def main() -> int:
    """Print the chosen interpreter's path; say why on stderr."""
    default = shutil.which("python3") or sys.executable
    chosen, timed = pick(default)
    for path, seconds in timed:
        mark = "*" if path == chosen else " "
        print(f"{mark} {seconds:.3f} s  {path}", file=sys.stderr)
    print(f"pick_python: .venv is made with {chosen} (make PY=... to choose another)",
          file=sys.stderr)
    print(chosen)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
