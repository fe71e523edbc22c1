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


def test_planned_episodes_never_recorded_are_said(tmp_path: Path) -> None:
    # A target whose endpoint refuses: 3 measurement failures, then the 4th is not launched.
    # Its group says 3 executions of 4 planned; a group with nothing recorded is listed too.
    campaign = CAMPAIGN.replace('seeds = "0-29"', 'seeds = "0-3"\nconcurrency = 1') + """
[[targets]]
name = "dead"
kind = "llm"
model = "m"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "AGM_DEAD_KEY"
max_retries = 0
"""
    file = tmp_path / "c.toml"
    file.write_text(campaign)
    store = str(tmp_path / "store")
    ran = CliRunner().invoke(app, ["campaign", "run", str(file), "--store", store, "--quiet"],
                             env={"AGM_DEAD_KEY": "k" * 20})
    assert ran.exit_code == 1, ran.output  # not launched: the campaign is incomplete
    doc = _json("--store", store)
    by = {g["agent"]: g for g in doc["groups"]}
    assert (by["ignore"]["executions"], by["ignore"]["planned"], by["ignore"]["not_recorded"]) \
        == (4, 4, 0)
    assert (by["dead"]["executions"], by["dead"]["planned"], by["dead"]["not_recorded"]) \
        == (3, 4, 1)
    assert (doc["executions"], doc["planned"]) == (7, 8)
    res = CliRunner().invoke(app, ["assess", "clarification", "--store", store],
                             env={"COLUMNS": "80"})
    text = " ".join(res.stdout.split())
    assert "dead at L2, 3 executions of 4 planned (1 not recorded: not launched or pending)" \
        in text
    assert "ignore at L2, 4 executions (draft_notice" in text
