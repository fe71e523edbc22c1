"""Time the full ResearchOpsEnv grid (1,575 records) and its diagnosis; write JSON.

    python benchmarks/diagnose_grid.py

The goal (docs/diagnose.md) is under 60 s on a 2-core machine for the grid.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from agentmetrology.diagnose.run import diagnose_store
from agentmetrology.run.campaign import load_campaign, run_campaign
from agentmetrology.store import EvidenceStore

ROOT = Path(__file__).resolve().parents[1]
GRID = ROOT / "examples" / "researchops_grid.toml"
OUT = ROOT / "benchmarks" / "results" / "diagnose_grid.json"


def main() -> None:
    """Run the grid inline into a fresh store, diagnose it, write the timings."""
    config = load_campaign(GRID)
    with tempfile.TemporaryDirectory(prefix="agm-grid-") as tmp:
        store = EvidenceStore.open(Path(tmp) / "store")
        t0 = time.perf_counter()
        result = run_campaign(config, store, backend="inline")
        campaign_s = time.perf_counter() - t0
        store.close()
        t1 = time.perf_counter()
        doc = diagnose_store(Path(tmp) / "store")
        diagnose_s = time.perf_counter() - t1
    records = result.recorded
    out = {"records": records, "campaign_s": round(campaign_s, 3),
           "records_per_s": round(records / campaign_s, 1),
           "diagnose_s": round(diagnose_s, 3), "pairs": doc["pairs"]["complete"],
           "goal_s": 60, "meets_goal": campaign_s + diagnose_s < 60}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
