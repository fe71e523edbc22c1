"""The tool worlds' own pins on every path: clarification's unknown contracts (null in rows,
excluded by `agm stats` and by the campaign status), permission's recipes (a campaign over a
recipe condition, the refusal of an unknown parameter) and its audit, and an MCP client's
idempotent refunds on the transaction world."""

from __future__ import annotations

import json
from typing import Any

from support.conformance import EnvPins, McpScript, Observation, Pin, Results, rows

CAMPAIGN = """
[campaign]
name = "perm"
environment = "permission"
tasks = ["flag_overdue"]
seeds = "0-1"
levels = ["L2"]
conditions = ["clean", "recipe:level=editor"]

[[targets]]
name = "within"
kind = "scripted"
agent = "scripted:within"

[[targets]]
name = "overreach"
kind = "scripted"
agent = "scripted:overreach"
"""
CLARIFY_CAMPAIGN = (CAMPAIGN.replace('"perm"', '"clar"')
                    .replace('"permission"', '"clarification"')
                    .replace('["flag_overdue"]', '["draft_notice"]')
                    .replace('"0-1"', '"0-9"')
                    .replace(', "recipe:level=editor"', "")
                    .split("[[targets]]")[0]
                    + '[[targets]]\nname = "clarify"\nkind = "scripted"\n'
                      'agent = "scripted:clarify"\n')


def _campaign_commands(toml: str) -> dict[str, list[str]]:
    return {"run": ["campaign", "run", f"{{root}}/{toml}", "--store", "{root}/store"],
            "status": ["campaign", "status", "--store", "{root}/store", "--json"]}


def _unknown_contract(res: Results) -> None:
    got = rows(res["run"])
    unknown = [r for r in got if r["contract"]["status"] == "UNKNOWN"]
    assert len(unknown) == 4 and all(r["contract"]["score"] is None for r in unknown)
    assert all(r["goal"]["score"] == 1.0 for r in got)
    doc = json.loads(res["stats"].stdout)
    assert doc["rows"] == {"read": 10, "used": 6, "excluded": 4}
    assert doc["groups"][0]["mean"]["value"] == 1.0  # never (6 + 0*4)/10


def _unknown_out_of_the_mean(res: Results) -> None:
    assert res["run"].returncode == 0, res["run"].stderr
    doc = json.loads(res["status"].stdout)
    scores = doc["campaigns"][0]["scores"]["clarify"]
    assert scores["contract"] == {"mean_score": 1.0, "n": 10, "scored": 6,
                                  "statuses": {"PASS": 6, "UNKNOWN": 4},
                                  "excluded": {"count": 4,
                                               "by_reason": {"status UNKNOWN": {"count": 4}}}}
    assert scores["goal"]["statuses"] == {"PASS": 10}


def _bad_recipe(res: Results) -> None:
    bad = res["bad"]
    assert bad.returncode == 2
    assert bad.stderr.strip() == ("error: --condition: unknown recipe parameter 'clearance' of "
                                  "permission; known: level (read_only | editor | admin)")


def _recipes(res: Results) -> None:
    assert res["run"].returncode == 0, res["run"].stderr
    doc = json.loads(res["status"].stdout)
    total = doc["campaigns"][0]["total"]
    assert total["planned"] == total["done"] == 8  # 2 targets x 2 conditions x 2 seeds
    assert res["regrade"].returncode == 0, res["regrade"].stderr
    regrade = json.loads((res.root / "rg" / "regrade.json").read_text())
    contract = regrade["scorers"]["contract"]
    assert contract["episodes"] == 8 and contract["score_changed"] == 0


def _permission_audit(doc: dict[str, Any]) -> None:
    config = doc["card"]["configurations"][0]  # the shipped scorer (then the truth scorer)
    crit = config["rows"]["criterion_sensitivity"]
    # the goal scorer is also the truth, checked against the probe declared to miss the goal
    # (careless): a test that can fail; two seeds of one task are 2 samples, below the
    # minimum of 3, so its pass is withheld and licenses nothing yet
    assert crit["evidence"]["quality_from"] == "the probes' declared degradation: careless"
    assert (crit["status"], crit["evidence"]["withheld"]) == ("insufficient evidence", "pass")
    assert config["licensed_claim"] == "no claim licensed"
    # The goal-only scorer, probed with every scripted policy at the default (read-only)
    # authority: only the careless one misses the goal (the profile's failing policies break
    # an invariant, not the goal).
    assert crit["evidence"]["score_mean_by_probe"] == {
        "careless": 0.0, "collateral": 1.0, "overreach": 1.0, "silent": 1.0, "within": 1.0,
        "stale_list": 1.0, "blank_doc": 1.0, "impersonate": 1.0, "reopen": 1.0,
        "goodwill": 1.0}


def _transaction_mcp(names: list[str], obs: list[Observation]) -> None:
    assert names == ["get_task", "get_order", "refund", "credit_customer", "update_order",
                     "get_ticket", "update_ticket", "patch_ticket", "edit_document",
                     "send_mail", "schedule_event", "finish"]
    assert obs[1]["retry"] is True and obs[2]["replayed"] is True
    assert obs[3]["refunded"] == 40 and obs[4]["status"] == "finished"


def _transaction_regrade(regrade: dict[str, Any]) -> None:
    assert regrade["store"]["recorded"] == 1
    assert regrade["scorers"]["contract"]["transitions"]["n11"] == 1  # PASS, recorded and now


_KEY = {"order_id": "O1", "amount": 40, "idempotency_key": "mcp-1"}

PINS = {
    "clarification": EnvPins(
        run={"unknown_contract": Pin(
            check=_unknown_contract,
            commands={"run": ["run", "clarification", "--task", "all", "--seeds", "0-9",
                              "--agent", "scripted:clarify", "--json"]},
            stdout_files={"rows.jsonl": "run"},
            then={"stats": ["stats", "summarize", "{root}/rows.jsonl", "--value",
                            "contract.score", "--group", "agent", "--json"]})},
        campaign={"unknown_out_of_the_mean": Pin(
            files={"c.toml": CLARIFY_CAMPAIGN}, check=_unknown_out_of_the_mean,
            commands=_campaign_commands("c.toml"))}),
    "permission": EnvPins(
        run={"bad_recipe": Pin(check=_bad_recipe, process=("bad",), commands={
            "bad": ["run", "permission", "--task", "all", "--agent", "scripted:within",
                    "--condition", "recipe:clearance=top"]})},
        campaign={"recipes": Pin(
            files={"perm.toml": CAMPAIGN}, check=_recipes,
            commands={**_campaign_commands("perm.toml"),
                      "regrade": ["archive", "regrade", "{root}/store", "--out",
                                  "{root}/rg"]})},
        audit_seeds="0-1",
        audit=_permission_audit),
    "transaction": EnvPins(
        mcp=McpScript(task="refund", seed=2, check=_transaction_mcp,
                      regrade=_transaction_regrade, calls=[
                          ("get_task", {}), ("refund", _KEY), ("refund", _KEY),
                          ("get_order", {"order_id": "O1", "fresh": True}),
                          ("finish", {"answer": 40})])),
}
