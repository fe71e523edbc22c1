"""Ledger append throughput: episodes recorded per second into an evidence store.

Two measurements: (1) `EvidenceStore.record` of pre-encoded episodes (start attempt, record
episode with two assessments), the ledger's hot path with nothing else around it; (2) an inline
`campaign run` of model-free agents (examples/campaign.toml: 150 administrations). Run it on
two trees to compare (e.g. before and after the hash chain). Writes
benchmarks/results/ledger_append.json.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from agentmetrology.records import Assessment, Episode, EpisodeKey, Event, Termination, Usage
from agentmetrology.store import Binding, EvidenceStore
from agentmetrology.store.evidence import EpisodeEvidence

OUT = Path(__file__).resolve().parent / "results" / "ledger_append.json"
N = 2000
CAMPAIGN = (Path(__file__).resolve().parents[1] / "examples" / "campaign.toml").read_text()


def _evidence(n: int) -> tuple[list[Binding], list[EpisodeEvidence]]:
    versions = {"ground_truth_f1": "1.0.0", "shape_judge": "1.0.0"}
    binds, evs = [], []
    for i in range(n):
        k = EpisodeKey("c", "t", "T3_duplicates", i, "clean", "L2", 0)
        binds.append(Binding(k, i, "a" * 64, "b" * 64, dict(versions)))
        ep = Episode(k, k.target, k.task, k.seed, k.condition, k.level,
                     [Event(j, "agent", "tool", "get_page", {"page": j}, {"rows": j}, 0.0)
                      for j in range(20)],
                     {"data_jsonl": "x" * 2000, "metadata_json": "{}", "run_log": "ok"},
                     Termination("submitted", ""), Usage(20, 20, []))
        scored = [Assessment("ground_truth_f1", "1.0.0", "PASS", 1.0, {}, (), "d" * 64),
                  Assessment("shape_judge", "1.0.0", "PARTIAL", 50.0, {}, (), "d" * 64)]
        evs.append(EpisodeEvidence.from_records(ep, scored))
    return binds, evs


def record_rate() -> float:
    """Return episodes recorded per second (median of 3 fresh stores)."""
    binds, evs = _evidence(N)
    rates = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as tmp, \
                EvidenceStore.open(Path(tmp) / "s", scrub_env=False) as st:
            st.register_campaign("c", "p" * 64, {"name": "c"}, binds)
            adms = st.pending("c")
            start = time.perf_counter()
            for adm, ev in zip(adms, evs, strict=True):
                st.record(st.start_attempt(adm, None, "inline"), ev)
            rates.append(N / (time.perf_counter() - start))
    return statistics.median(rates)


def campaign_rate() -> float:
    """Return administrations per second of an inline campaign run (median of 3)."""
    from agentmetrology.run.campaign import load_campaign, run_campaign

    rates = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            f = Path(tmp) / "c.toml"
            f.write_text(CAMPAIGN)
            config = load_campaign(f)
            with EvidenceStore.open(Path(tmp) / "s", scrub_env=False) as st:
                start = time.perf_counter()
                result = run_campaign(config, st)
                rates.append(result.recorded / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    """Measure and write the JSON result."""
    import agentmetrology

    doc = {"tree": str(Path(agentmetrology.__file__).parents[2]),
           "python": sys.version.split()[0], "machine": platform.machine(),
           "cpus": os.cpu_count(),
           "processor_note": "load " + ", ".join(f"{x:.2f}" for x in os.getloadavg()),
           "record_episodes_per_s": round(record_rate(), 1),
           "campaign_administrations_per_s": round(campaign_rate(), 1)}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc))


if __name__ == "__main__":
    main()
