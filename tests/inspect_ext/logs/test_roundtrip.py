"""Round trip: an Inspect eval of our task with the mock model, then `agm archive audit` its log.

Processes: the three logs come from the suite's one shared Inspect process (support.inspect_logs);
`agm archive audit` runs as a user runs it, in a process of its own; the negative control (no
entry point, so no task) needs a fresh interpreter whose metadata lacks our entry point."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.agm_runs import AGM


# First in the module: it needs no shared log, so under xdist another worker has time to
# finish writing them (support.inspect_logs) before `audited` asks for them.
def test_a_log_without_our_entry_point_is_not_our_task(inspect_env: dict[str, str],
                                                       tmp_path: Path) -> None:
    # Positive control for the entry point: without it the name is not found. The test's
    # dist-info is dropped, and the installed package's metadata (which declares the entry
    # point too) is shadowed by one that declares none: the first `agentmetrology` on the
    # path is the one importlib.metadata reads.
    bare = tmp_path / "bare-site" / "agentmetrology-0.1.0.dist-info"
    bare.mkdir(parents=True)
    (bare / "METADATA").write_text("Metadata-Version: 2.1\nName: agentmetrology\n"
                                   "Version: 0.1.0\n")
    env = {**inspect_env, "PYTHONPATH": os.pathsep.join(
        [str(bare.parent), *(p for p in inspect_env["PYTHONPATH"].split(os.pathsep)
                             if "site" not in Path(p).name)])}
    spec = [{"env": "comtrade", "behaviour": "text", "task_args": {"task": "T3_duplicates"},
             "log_dir": str(tmp_path)}]
    mock = Path(__file__).resolve().parents[1] / "inspect_mock.py"
    res = subprocess.run([sys.executable, str(mock), json.dumps(spec)], env=env,
                         capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode != 0
    assert list(tmp_path.glob("*.eval")) == []


@pytest.fixture(scope="module")
def audited(inspect_logs: dict[str, Path], inspect_env: dict[str, str],
            tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Return archive.json of a directory with three logs: L2 and L0 correct, one outage.

    The logs are the rule agent on T3 seed 0 at L2 and at L0 and a provider outage, copied
    from the suite's shared batch (support.inspect_logs, one process for every Inspect log).
    """
    logs = tmp_path_factory.mktemp("roundtrip-logs")
    for name in ("L2", "L0", "raise"):
        shutil.copy2(inspect_logs[name], logs / inspect_logs[name].name)
    assert len(list(logs.glob("*.eval"))) == 3
    out = tmp_path_factory.mktemp("roundtrip-audit")
    res = subprocess.run([*AGM, "archive", "audit", str(logs), "--out", str(out)],
                         env={**inspect_env, "COLUMNS": "200"}, capture_output=True, text=True,
                         timeout=300, check=False)
    assert res.returncode == 0, res.stderr
    assert "graded" in res.stdout
    doc: dict[str, Any] = json.loads((out / "archive.json").read_text())
    assert {p.name for p in out.iterdir()} == {"archive.json", "report.md", "report.html"}
    return doc


def test_the_audit_counts_the_outage_as_ungraded(audited: dict[str, Any]) -> None:
    overall = audited["coverage"]["overall"]
    assert overall["counts"] == {"pass": 2, "fail": 0, "ungraded": 1, "invalid_replay": 0}
    assert overall["graded"] == 2 and overall["planned"] == 3
    assert overall["reasons"] == {"unscored": 1}  # NaN from Score.unscored, never a 0
    assert overall["score_graded_only"] == 1.0  # ground-truth F1, the headline scorer
    assert overall["bounds"] == {"lower": 2 / 3, "upper": 1.0, "width": 1 / 3}


def test_the_audit_sees_who_acted(audited: dict[str, Any]) -> None:
    prov = audited["provenance"]
    assert prov["applicable"] is True
    # L2: 4 agent calls; L0: 3 agent pages and the harness's submission; the outage: none.
    assert prov["actor_labels"] == {"agent": 7, "harness": 1}
    assert (prov["executed_calls"], prov["archived_actions"], prov["matched"]) == (7, 8, 7)
    # The one action no model call explains is the L0 harness's submission.
    assert prov["candidates"] == 1 and prov["unmatched_executed"] == 0
    (listed,) = prov["episodes"]
    assert listed["candidates"] == [{"index": 3, "name": "submit_results"}]


def test_logs_of_two_levels_are_two_cells(audited: dict[str, Any]) -> None:
    cells = {c["cell"]: c["counts"] for c in audited["coverage"]["cells"]}
    by_level = {level: [name for name in cells if f"[level={level}," in name]
                for level in ("L0", "L2")}
    assert all(len(names) == 1 for names in by_level.values()), cells
    (l0,), (l2,) = by_level["L0"], by_level["L2"]
    assert l0 != l2 and cells[l0]["pass"] == 1 and cells[l2]["pass"] == 1
