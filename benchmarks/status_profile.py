"""Where the CPU time of `agm campaign status` goes: one child process, each phase timed.

Run by benchmarks/memory.py (`--profile`) in a child process whose PYTHONPATH is the measured
tree and whose AGM_VERIFY_CACHE is a scratch folder, so cold (no memo) and warm (memo reused)
are controlled. Phases, in the order the command runs them: imports (the command's modules),
the status numbers (status memo: hit or computed), the blob fingerprint, the ledger check
(memo: hit, with the re-opened specifications; or run, split into the verifier's own steps,
and not kept), the rendering. Prints one JSON object: CPU and wall seconds per phase.
Run: python benchmarks/status_profile.py STORE [--cold]
"""

from __future__ import annotations

import io
import json
import shutil
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import Any


class _Clock:
    def __init__(self) -> None:
        self.phases: dict[str, dict[str, float]] = {}
        # CPU from the process's start: the first phase includes the interpreter's start-up.
        self._cpu, self._wall = 0.0, time.perf_counter()

    def lap(self, name: str) -> None:
        cpu, wall = time.process_time(), time.perf_counter()
        self.phases[name] = {"cpu_s": round(cpu - self._cpu, 3),
                             "wall_s": round(wall - self._wall, 3)}
        self._cpu, self._wall = cpu, wall


def profile(root: Path, cold: bool) -> dict[str, Any]:
    """Return the phases of one status of the store at `root` (cold: memos removed first)."""
    clock = _Clock()
    from agentmetrology.store import verify_memo

    folder = verify_memo.memo_dir()
    if cold and folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
    clock.lap("interpreter and package")
    from agentmetrology.archive.evidence_check import reopened_spec_digest
    from agentmetrology.cli import campaign_cmd, main  # noqa: F401  (agm's first imports)
    from agentmetrology.report.terminal.campaign_report import print_store_status
    from agentmetrology.store import verify
    from agentmetrology.store.opening import open_store
    from agentmetrology.store.status import grader_totals
    from agentmetrology.store.status_memo import campaign_view
    clock.lap("imports")
    with open_store(root) as st:
        names = st.campaigns()
        view = campaign_view(st, names, cells=True)
        clock.lap("status numbers (memo hit)" if view.reused else "status numbers (computed)")
        key = verify_memo.fingerprint(root)
        clock.lap("blob fingerprint")
        hit = verify_memo.lookup(root, key, reopened_spec_digest)
        if hit is not None:
            clock.lap("ledger check (memo hit, specifications re-opened)")
        else:
            with closing(verify.open_ledger_readonly(root)) as c:
                v = verify._Verifier(root, c, "ledger", reopened_spec_digest)
                v.structure()
                v.heads(v.chain()[0])  # the order of _Verifier.run
                clock.lap("ledger check: chain")
                for step in ("rows", "texts", "blobs", "bindings", "episodes"):
                    getattr(v, step)()
                    clock.lap(f"ledger check: {step}")
        from rich.console import Console

        console = Console(file=io.StringIO(), width=160)
        print_store_status(console, console, root, view, grader_totals(st.grader_calls()),
                           {"result": "QUALIFIED"})
        clock.lap("rendering")
    total_cpu = round(sum(p["cpu_s"] for p in clock.phases.values()), 3)
    return {"state": "cold" if cold else "warm", "phases": clock.phases, "cpu_s": total_cpu}


def main() -> None:
    """Profile one status and print the JSON."""
    args = sys.argv[1:]
    print(json.dumps(profile(Path(args[0]), "--cold" in args)))


if __name__ == "__main__":
    main()
