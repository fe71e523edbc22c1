"""Where the time goes in `agm export` and `agm archive audit` (for export_audit_scale.py).

Each step runs in a child process on a given tree; its CPU seconds are its own work (the steps
before it run again inside it and are subtracted). The audit's steps run in that one process
(AGM_ARCHIVE_READERS=0: no blob reader, no ledger half of the store check beside it), so each
step's CPU is all of its work, wherever the command itself runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from store_scale import _copy  # the ledger copied, the blobs hard-linked

_EXPORT_STEPS = """import json, sys, time
from pathlib import Path
from agentmetrology.run.export import stream_rows
from agentmetrology.run.export_encode import text_chunks
from agentmetrology.run.export_write import export_store
from agentmetrology.store import EvidenceStore
from agentmetrology.store.export_query import recorded_rows
root, dest = Path(sys.argv[1]), Path(sys.argv[2])
def cpu(f):
    t = time.process_time(); f(); return time.process_time() - t
def encoded(st):
    s = stream_rows(st, None)
    for _ in text_chunks(s.columns, s.values, "jsonl"):
        pass
with EvidenceStore.open_readonly(root, scrub_env=False) as st:
    walk = cpu(lambda: [sum(1 for _ in recorded_rows(st, c)) for c in st.campaigns()])
    values = cpu(lambda: sum(1 for _ in stream_rows(st, None).values))
    encode = cpu(lambda: encoded(st))
whole = cpu(lambda: export_store(root, None, "jsonl", dest, force=True))
print(json.dumps({"ledger walk (2 streamed queries, bindings hashed)": walk,
                  "row values (binding fields decoded, scorer slots)": values - walk,
                  "JSON Lines encoding": encode - values,
                  "opening the store, its column queries, writing the file (fsync)":
                      whole - encode}))"""
_AUDIT_STEPS = """import json, sys, time
from pathlib import Path
from agentmetrology.archive import audit_archive, load_archive
from agentmetrology.archive.inputs import read_from, store_binding
from agentmetrology.archive.recovery import recover_grades
from agentmetrology.report.archive_files import write_archive_audit
src, out = Path(sys.argv[1]), Path(sys.argv[2])
out.mkdir(exist_ok=True)
steps = {}
def cpu(name, f):
    t = time.process_time(); r = f(); steps[name] = time.process_time() - t; return r
archive = cpu("import (ledger walk, each episode blob read once)",
              lambda: load_archive(src, "agm"))
cpu("grade recovery by replay (validation + recovery)", lambda: recover_grades(archive))
q, facts = cpu("evidence check of the store (store.verify, full)",
               lambda: store_binding(archive, src))
doc = cpu("the audit's checks", lambda: audit_archive(archive, read_from(src), q, facts, None))
cpu("writing archive.json, report.md, report.html", lambda: write_archive_audit(doc, out))
print(json.dumps(steps))"""


def where_time_goes(src: Path, export_store: Path, audit_store: Path, cwd: Path,
                    ) -> dict[str, Any]:
    """Return the CPU seconds of each step of a JSON Lines export of `export_store` and of an
    audit of a copy of `audit_store` (its ledger copied, its blobs hard-linked), on tree `src`,
    in the scratch folder `cwd` (removed after)."""
    env = dict(os.environ, PYTHONPATH=str(src), AGM_ARCHIVE_READERS="0")
    shutil.rmtree(cwd, ignore_errors=True)
    cwd.mkdir()
    _copy(audit_store, cwd / "S")

    def run(code: str, *args: str) -> dict[str, float]:
        out = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=cwd,
                             capture_output=True, text=True, check=True).stdout
        return {k: round(v, 3) for k, v in json.loads(out.splitlines()[-1]).items()}
    steps = {"export": {"rows_of_store": _n(export_store), "format": "jsonl",
                        "cpu_s": run(_EXPORT_STEPS, str(export_store),
                                     str(cwd / "steps.jsonl"))},
             "audit": {"planned_of_store": _n(audit_store),
                       "cpu_s": run(_AUDIT_STEPS, str(cwd / "S"), str(cwd / "out"))}}
    shutil.rmtree(cwd)
    return steps


def _n(store: Path) -> int:
    """Return the size a cached store was built for (store-N)."""
    return int(store.name.rsplit("-", 1)[1])
