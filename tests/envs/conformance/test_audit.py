"""Conformance, the auditor: `agm audit` of every environment writes a card whose every row has
a status and every "not probed" its reason; then each environment's own audit pins
(`support.env_pins`, read from the same audit, run with the seeds the pins name). Processes: see
`support.conformance`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from support.conformance import ENVIRONMENTS, Pin, Results, run_pins
from support.env_pins import PINS

CARD_STATUSES = {"pass", "fail", "not probed", "insufficient evidence"}
PINNED = [env for env in ENVIRONMENTS if PINS[env].audit is not None]


@pytest.fixture(scope="module")
def results(plugin_env: dict[str, str],
            tmp_path_factory: pytest.TempPathFactory) -> dict[str, Results]:
    pins = {name: Pin(check=lambda _: None, commands={"audit": [
        "audit", name, "--seeds", PINS[name].audit_seeds, "--out", "{root}/audit", "--json"]})
        for name in ENVIRONMENTS}
    return run_pins(pins, tmp_path_factory.mktemp("conformance-audit"), plugin_env)


def _doc(results: dict[str, Results], name: str) -> dict[str, Any]:
    res = results[name]["audit"]
    assert res.returncode == 0, res.stderr
    doc: dict[str, Any] = json.loads((results[name].root / "audit" / "audit.json").read_text())
    return doc


@pytest.mark.parametrize("name", ENVIRONMENTS)
def test_audit_card_says_why_for_every_not_probed(results: dict[str, Results],
                                                  name: str) -> None:
    for config in _doc(results, name)["card"]["configurations"]:
        for row_name, row in config["rows"].items():
            if row_name == "scorer_kind":  # its status is the kind itself
                continue
            assert row["status"] in CARD_STATUSES, (row_name, row)
            if row["status"] == "not probed":
                assert row["evidence"].get("reason"), (row_name, row)


@pytest.mark.parametrize("name", PINNED)
def test_environment_pins(results: dict[str, Results], name: str) -> None:
    check = PINS[name].audit
    assert check is not None
    check(_doc(results, name))
