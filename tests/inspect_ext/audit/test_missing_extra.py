"""Without the `inspect` extra, `agm audit inspect` says which extra in one line (no traceback)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# A core-only install, simulated: importing the inspect extra's packages fails as it would there.
WITHOUT_INSPECT = """
import importlib.abc, sys
class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {"inspect_ai", "inspect_evals", "yaml"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Missing())
sys.argv = ["agm", *sys.argv[1:]]
from agentmetrology.cli.main import main
main()
"""


def test_audit_inspect_without_the_extra_is_one_line(tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, "-c", WITHOUT_INSPECT, "audit", "inspect",
                          "inspect_evals/tau2_airline", "--limit", "1", "--out",
                          str(tmp_path / "out")], capture_output=True, text=True, timeout=120,
                         check=False)
    assert res.returncode == 2
    assert res.stderr == ("error: auditing an Inspect task needs the optional extra: pip "
                          "install 'agentmetrology[inspect]'\n")
    assert not (tmp_path / "out").exists()
