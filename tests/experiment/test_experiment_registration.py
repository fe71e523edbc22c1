"""Pre-registration as an outside checker attacks it: an edited store, an unregistered new plan."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agentmetrology.store import EvidenceStore
from support.agm_runs import run_main
from support.small_campaigns import PERMISSION

PLAN = """[experiment]
name = "reg"
hypothesis = "escalation costs coverage at matched mean"
kind = "ab"
targets = ["rule"]
levels = ["L1"]
n = 2
"""


def agm(*args: str) -> tuple[int, str]:
    """Run `agm ARGS` in this process; exit code and stdout + stderr on one line."""
    r = run_main(args)
    return r.returncode, " ".join((r.stdout + r.stderr).split())


@pytest.fixture()
def ran(tmp_path: Path) -> Path:
    (tmp_path / "plan.toml").write_text(PLAN)
    code, out = agm("experiment", "run", str(tmp_path / "plan.toml"), "--store",
                    str(tmp_path / "store"))
    assert code == 0, out
    return tmp_path


def test_a_new_plan_not_yet_run_is_told_to_run_not_to_declare_itself_new(ran: Path) -> None:
    new = ran / "new.toml"
    new.write_text(PLAN.replace("n = 2", "n = 3") + 'registration = "new"\n')
    for cmd, extra in (("status", []), ("report", ["--out", str(ran / "out")])):
        code, out = agm("experiment", cmd, str(new), "--store", str(ran / "store"), *extra)
        assert code == 2, out
        # It declares registration = "new" already: the fix is to run it.
        assert "declare registration" not in out
        assert (f"error: experiment 'reg': this plan (registration = \"new\") is not registered "
                f"in {ran / 'store'} yet; `agm experiment run` registers it") in out
    assert not (ran / "out").exists()


def test_a_frozen_plan_edited_in_the_store_is_never_evaluated(ran: Path) -> None:
    store = ran / "store"
    with EvidenceStore.open(store) as st:
        row = st.ledger.campaign("exp.reg")
        assert row is not None
        config = st.get_json(row["config_digest"])
        config["experiment"]["plan"]["analysis_seed"] = 7  # the digest is left as registered
        forged = st.put_json(config)
    with sqlite3.connect(store / "ledger.sqlite") as db:
        db.execute("UPDATE campaigns SET config_digest = ? WHERE name = 'exp.reg'", (forged,))
    db.close()
    # Before: the report evaluated analysis_seed 7 under the registered digest of seed 0.
    code, out = agm("experiment", "report", str(ran / "plan.toml"), "--store", str(store),
                    "--out", str(ran / "out"))
    assert code == 2, out
    assert ("error: registration exp.reg of experiment 'reg': its frozen plan no longer hashes "
            "to the digest it was registered with (the store was edited); `agm evidence "
            "verify` names what changed") in out
    assert not (ran / "out").exists()
    code, out = agm("evidence", "verify", str(store))
    assert code == 1 and "row_changed: campaigns name=exp.reg" in out


def test_the_report_evaluates_the_frozen_plan(ran: Path) -> None:
    code, out = agm("experiment", "report", str(ran / "plan.toml"), "--store",
                    str(ran / "store"), "--out", str(ran / "out"))
    assert code == 0, out
    doc = json.loads((ran / "out" / "experiment.json").read_text())
    assert doc["plan"]["analysis_seed"] == 0 and doc["registration"] == "exp.reg"


# A plain campaign (`agm campaign run`) that happens to hold the registration's name.
CAMPAIGN = PERMISSION.replace('name = "perm"', 'name = "exp.reg"')


def test_a_campaign_holding_the_registration_name_is_named_with_its_fix(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(CAMPAIGN)
    (tmp_path / "plan.toml").write_text(PLAN)
    code, out = agm("campaign", "run", str(tmp_path / "c.toml"), "--store", str(tmp_path / "s"))
    assert code == 0, out
    code, out = agm("experiment", "run", str(tmp_path / "plan.toml"), "--store",
                    str(tmp_path / "s"))
    # Before: "campaign 'exp.reg' is already in this store with a different plan (...); use a
    # new campaign name", a name the experiment's user does not write.
    assert code == 2 and out.endswith(
        "error: campaign 'exp.reg' in this store was not registered by an experiment (an `agm "
        "campaign` of that name); rename experiment 'reg' or use another store")
