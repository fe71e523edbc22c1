"""`agm assess ENV --store DIR`: the contract envelope over recorded episodes, never re-run.

Which processes: the first bad store input is refused by a real `agm` process (exit status 2,
one line on stderr); the other refusals run `cli.main.main` in this process
(`support.agm_runs.run_main`: the same argv, stdout, stderr and exit code), which saves ~0.5 s
of imports per command.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from support.agm_runs import agm, agm_process
from support.stores import record_campaign

CAMPAIGN = """
[campaign]
name = "clar"
environment = "clarification"
tasks = ["draft_notice"]
seeds = "0-29"
levels = ["L2"]

[[targets]]
name = "ignore"
kind = "scripted"
agent = "scripted:ignore_reply"
"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("assess-store")
    record_campaign(root, CAMPAIGN)
    return root


def _json(*args: str) -> dict:
    res = CliRunner().invoke(app, ["assess", "clarification", *args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_recorded_episodes_give_the_run_envelope(recorded: Path) -> None:
    store = str(recorded / "store")
    doc = _json("--store", store, "--mask", "log")
    assert doc["evidence"]["result"] == "qualified" and doc["executions"] == 30
    (group,) = doc["groups"]
    assert (group["campaign"], group["agent"], group["level"]) == ("clar", "ignore", "L2")
    ran = _json("--agent", "scripted:ignore_reply", "--seeds", "0-29", "--mask", "log")
    # the same 30 episodes, recorded or run: the same verdicts (pinned in test_assess_cli)
    assert group["views"] == ran["views"]
    c = group["views"]["original"]["contract"]
    assert (c["pass"], c["fail"], c["unknown"]) == (11, 10, 9)
    assert c["envelope_counts"] == ["11/30", "20/30"]
    assert _json("--store", store, "--campaign", "clar")["executions"] == 30


def test_an_unavailable_episode_is_a_measurement_failure_and_unqualified(
        tmp_path: Path, recorded: Path) -> None:
    store = tmp_path / "store"
    shutil.copytree(recorded / "store", store)
    with closing(sqlite3.connect(store / "ledger.sqlite")) as c:
        (digest,) = c.execute("SELECT episode_digest FROM episodes ORDER BY administration "
                              "LIMIT 1").fetchone()
    (store / "blobs" / digest[:2] / digest[2:]).unlink()
    res = CliRunner().invoke(app, ["assess", "clarification", "--store", str(store), "--json"])
    assert res.exit_code == 0, res.output
    assert "UNQUALIFIED EVIDENCE (unavailable)" in res.stderr
    doc = json.loads(res.stdout)
    c = doc["groups"][0]["views"]["original"]["contract"]
    assert c["admissible"] == 29 and c["excluded"]["measurement_failure"] == 1
    assert doc["evidence"]["problem_kinds"]["blob_missing"] >= 1


def test_bad_store_input_is_one_line(recorded: Path, tmp_path: Path) -> None:
    store = str(recorded / "store")
    for i, args in enumerate((["--store", store, "--agent", "scripted:clarify"],
                              ["--store", store, "--campaign", "nope"],
                              ["--campaign", "clar", "--agent", "scripted:clarify"],
                              ["--store", str(tmp_path / "none")],
                              ["--store", store, "--mask", "nowhere"])):
        res = (agm_process if i == 0 else agm)("assess", "clarification", *args)
        assert res.returncode == 2, (args, res.stderr)
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), (args, res.stderr)
    res = agm("assess", "permission", "--store", store)
    assert res.returncode == 2 and "no recorded episodes of permission" in res.stderr


def test_an_episode_blob_that_is_not_an_episode_is_a_measurement_failure(
        tmp_path: Path, recorded: Path) -> None:
    # A blob of another shape under its own digest (the row pointed at it): excluded with its
    # reason, never a KeyError traceback.
    import hashlib
    store = tmp_path / "store"
    shutil.copytree(recorded / "store", store)
    data = b'{"key":{}}'
    forged = hashlib.sha256(data).hexdigest()
    (store / "blobs" / forged[:2]).mkdir(exist_ok=True)
    (store / "blobs" / forged[:2] / forged[2:]).write_bytes(data)
    with closing(sqlite3.connect(store / "ledger.sqlite")) as c:
        c.execute("UPDATE episodes SET episode_digest=? WHERE administration="
                  "(SELECT MIN(administration) FROM episodes)", (forged,))
        c.commit()
    res = CliRunner().invoke(app, ["assess", "clarification", "--store", str(store), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    c = doc["groups"][0]["views"]["original"]["contract"]
    assert c["admissible"] == 29 and c["excluded"]["measurement_failure"] == 1
    assert doc["evidence"]["result"] != "qualified"
