"""The masking sweep: mechanisms x proportions x raw checker vs completeness-aware gate.

A synthetic population pins each mechanism's choice (failure-linked hides failures first,
success-linked successes first); a run of the permission world through `agm assess --sweep`
pins the command's numbers; the paper's 50 % random row (92 established of 192, 96 masked)
pins the interval arithmetic.
"""

from __future__ import annotations

import json

from agentmetrology.assess.envelope import envelope_of
from agentmetrology.assess.sweep import choose, mask_count, sweep
from support.agm_runs import agm


def _row(status: str) -> dict[str, object]:
    raw = "FAIL"
    return {"original": {"contract": status}, "masked_raw": {"contract": raw},
            "masked_gate": {"contract": "FAIL" if status == "FAIL" else "UNKNOWN"}}


def test_mask_counts_of_192_trajectories() -> None:
    from agentmetrology.assess.sweep import PROPORTIONS
    assert [mask_count(p, 192) for p in PROPORTIONS] == [0, 19, 58, 96]


def test_mechanisms_choose_failures_or_successes_first() -> None:
    original = ["PASS"] * 184 + ["FAIL"] * 8
    assert all(original[i] == "FAIL" for i in choose(original, "failure-linked", 8, 0))
    assert all(original[i] == "PASS" for i in choose(original, "success-linked", 96, 0))
    assert choose(original, "random", 19, 0) == choose(original, "random", 19, 0)
    rows = [_row(s) for s in original]
    by = {(c["mechanism"], c["masked"]): c for c in sweep(rows, 0)}
    failure = by[("failure-linked", 19)]
    assert failure["masked_passing"] == 11
    assert (failure["raw"]["pass"], failure["gate"]["pass"], failure["gate"]["unknown"]) == (
        173, 173, 11)
    success = by[("success-linked", 96)]
    assert success["raw"]["envelope_counts"] == ["88/192", "88/192"]
    assert success["gate"]["envelope_counts"] == ["88/192", "184/192"]
    assert by[("random", 0)]["gate"]["envelope_counts"] == ["184/192", "184/192"]


def test_the_papers_fifty_percent_random_interval() -> None:
    # 92 established successes among the 96 unmasked, 96 masked copies UNKNOWN under the gate
    env = envelope_of(["PASS"] * 92 + ["FAIL"] * 4 + ["UNKNOWN"] * 96)
    assert (round(float(env.lower) * 100, 1), round(float(env.upper) * 100, 1)) == (47.9, 97.9)


def test_agm_assess_sweep_on_the_permission_world() -> None:
    res = agm("assess", "permission", "--agent", "scripted:within", "--seeds", "0-191",
              "--mask", "receipts", "--sweep", "0", "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["executions"] == 192 and len(doc["sweep"]) == 12
    row = next(c for c in doc["sweep"] if c["mechanism"] == "random" and c["masked"] == 96)
    assert row["raw"]["envelope_counts"] == ["96/192", "96/192"]  # raw: every copy FAIL
    assert row["raw"]["fail"] + row["raw"]["partial"] == 96
    assert row["gate"]["envelope_counts"] == ["96/192", "192/192"]  # gate: UNKNOWN
    assert row["gate"]["unknown"] == 96
    text = agm("assess", "permission", "--agent", "scripted:within", "--seeds", "0-191",
               "--mask", "receipts", "--sweep", "0")
    lines = text.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert ["random", "50.0%", "96", "96", "96", "[50.0%,", "50.0%]", "96", "[50.0%,",
            "100.0%]"] in [line.split() for line in lines]
    bad = agm("assess", "permission", "--agent", "scripted:within", "--sweep", "0")
    assert bad.returncode == 2 and "--mask" in bad.stderr
