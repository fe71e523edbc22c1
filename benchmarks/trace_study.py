"""Run the TRACE paper's ResearchOps grid (1,575 records), time it, and write Table 2 as JSON.

    python benchmarks/trace_study.py

Writes benchmarks/results/trace_study.json: the grid's time and, per policy, our pooled numbers
(450 pairs, tau = 0.65) beside the paper's.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from agentmetrology.diagnose.pairs import collect_pairs
from agentmetrology.diagnose.study import table2
from agentmetrology.run.campaign import load_campaign, run_campaign
from agentmetrology.store import EvidenceStore

ROOT = Path(__file__).resolve().parents[1]
GRID = ROOT / "examples" / "researchops_grid.toml"
OUT = ROOT / "benchmarks" / "results" / "trace_study.json"


def main() -> None:
    """Run the grid inline into a fresh store and write the timing and Table 2."""
    with tempfile.TemporaryDirectory(prefix="agm-trace-") as tmp:
        store = EvidenceStore.open(Path(tmp) / "store")
        t0 = time.perf_counter()
        result = run_campaign(load_campaign(GRID), store, backend="inline")
        campaign_s = time.perf_counter() - t0
        pairs, _ = collect_pairs(store)
        table = table2(pairs, tau=0.65)
        store.close()
    out = {"records": result.recorded, "campaign_s": round(campaign_s, 3), "tau": 0.65,
           "table2": table}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")
    print(json.dumps(out, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
