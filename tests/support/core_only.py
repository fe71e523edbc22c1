"""A core-only install, simulated: `agm` run in a subprocess where every module that the
package's core dependencies do not bring cannot be imported, as on `pip install agentmetrology`.

The set of allowed distributions is the closure of agentmetrology's own (non-extra)
requirements, read from the installed metadata, so a new core dependency needs no edit here.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

# Imported first by every Python process started with this folder on PYTHONPATH (the `agm`
# command and any worker it starts): the path finder no longer finds the blocked top-level modules.
_SITECUSTOMIZE = """
import importlib.machinery as machinery, os, sys
BLOCKED = frozenset(os.environ["AGM_TEST_BLOCKED"].split(","))
class CoreOnly(machinery.PathFinder):
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            return None  # as if not installed: importlib.util.find_spec says None too
        return machinery.PathFinder.find_spec(name, path, target)
sys.meta_path[:] = [CoreOnly if f is machinery.PathFinder else f for f in sys.meta_path]
"""


def _key(name: str) -> str:
    """Return a distribution name normalised (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def core_distributions() -> frozenset[str]:
    """Return the distributions a core-only install has: agentmetrology's requirements' closure."""
    seen: set[str] = set()
    todo = ["agentmetrology"]
    while todo:
        name = todo.pop()
        if _key(name) in seen:
            continue
        seen.add(_key(name))
        try:
            reqs = md.requires(name) or []
        except md.PackageNotFoundError:
            continue
        todo += [re.match(r"[A-Za-z0-9_.\-]+", r).group(0)  # type: ignore[union-attr]
                 for r in reqs if "extra ==" not in r]
    return frozenset(seen)


@cache
def blocked_modules() -> frozenset[str]:
    """Return the installed top-level modules that no core distribution provides."""
    core = core_distributions()
    return frozenset(top for top, dists in md.packages_distributions().items()
                     if top != "agentmetrology" and not any(_key(d) in core for d in dists))


def run_core_only(tmp: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run the installed `agm ARGS...` in `tmp` as on a core-only install; return the process."""
    site = tmp / "core-only-site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    env = {**os.environ, "AGM_TEST_BLOCKED": ",".join(sorted(blocked_modules())),
           "COLUMNS": "80",
           "PYTHONPATH": os.pathsep.join([str(site), *filter(None, [os.environ.get(
               "PYTHONPATH")])])}
    agm = str(Path(sys.executable).parent / "agm")
    return subprocess.run([agm, *args], capture_output=True, text=True, timeout=timeout,
                          check=False, cwd=tmp, env=env)
