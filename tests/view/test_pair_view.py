"""The paired view: a mutated episode beside its original, scores beside the counterfactual
rescoring, the first divergence of the two action sequences marked."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
from starlette.testclient import TestClient

from agentmetrology.envs.registry import get_env
from agentmetrology.records.episode import EpisodeKey
from agentmetrology.run.episode import run_one
from agentmetrology.view import create_app, detect_source
from agentmetrology.view.pair_page import first_divergence
from diagnose.test_diagnose import CAMPAIGN as DIAGNOSE_CAMPAIGN
from support.stores import record_campaign
from view.view_fixtures import table_cells

# The diagnose tests' campaign (rule and careful at L2), one task and seed, two mutations.
CAMPAIGN = (DIAGNOSE_CAMPAIGN.replace('name = "diag"', 'name = "pairs"')
            .replace('["T3_duplicates", "T4_rate_limit_429", "T8_mixed_faults"]',
                     '["T3_duplicates"]').replace('seeds = "0-1"', 'seeds = "0"')
            .replace('["alias", "misleading", "repeat"]', '["alias", "misleading"]'))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    root = tmp_path_factory.mktemp("pairs")
    record_campaign(root, CAMPAIGN)
    return TestClient(create_app(detect_source(root / "store")), base_url="http://127.0.0.1")


def _url(path: str, target: str, condition: str) -> str:
    return f"{path}?" + urlencode({"campaign": "pairs", "target": target, "task": "T3_duplicates",
                                   "seed": 0, "condition": condition, "level": "L2",
                                   "repeat": 0})


def test_a_robust_policy_under_alias_agrees_after_the_inverse_map(client: TestClient) -> None:
    r = client.get(_url("/pair", "careful", "mut:alias"))
    assert r.status_code == 200, r.text
    assert "the two action sequences agree (after the inverse map)" in r.text
    assert 'id="divergence"' not in r.text
    scores = {row[0]: row[1:] for row in table_cells(r.text, "pair-scores")}
    # The original, the mutated and the rescored mutated trajectory all pass the ground truth.
    assert all(cell.endswith("PASS") for cell in scores["ground_truth_f1"])
    assert "rescored (inverse map of alias)" in r.text
    assert "op_" in r.text and "fetch_page" in r.text  # both sides as recorded


def test_misleading_marks_the_first_divergence(client: TestClient) -> None:
    r = client.get(_url("/pair", "rule", "mut:misleading"))
    assert r.status_code == 200, r.text
    found = re.search(r"first divergence at <a href=\"#divergence\">step (\d+)</a>", r.text)
    assert found is not None
    marked = re.findall(r'<tr class="diverge" id="divergence"><td>(\d+)</td>', r.text)
    assert marked == [found.group(1)]  # the step named is the one marked, and only it


def test_the_episode_page_links_to_its_pair_and_bad_pairs_are_refused(
        client: TestClient) -> None:
    page = client.get(_url("/episode", "careful", "mut:alias")).text
    assert "/pair?" in page and "original and mutated side by side" in page
    assert "/pair?" not in client.get(_url("/episode", "careful", "clean")).text
    clean = client.get(_url("/pair", "careful", "clean"))
    assert clean.status_code == 404 and "has no mutation" in clean.text
    missing = client.get(_url("/pair", "nobody", "mut:alias"))
    assert missing.status_code == 404 and "not in the store" in missing.text
    assert client.get("/pair?campaign=pairs").status_code == 400


def test_first_divergence_counts_a_prefix_as_divergence() -> None:
    spec = get_env("comtrade")
    a = run_one(spec, "T3_duplicates", 0, "scripted:careful", "L2").episode
    tools = list(spec.make("T3_duplicates", 0, "seeded", "clean").tools)
    assert first_divergence(a, a, tools) is None
    short = type(a)(**{**{f: getattr(a, f) for f in a.__dataclass_fields__},
                       "events": a.events[:3], "key": EpisodeKey(
                           "c", "t", "T3_duplicates", 0, "clean", "L2", 0)})
    calls = sum(1 for e in a.events[:3] if e.kind == "tool_call" and e.actor == "agent")
    assert first_divergence(a, short, tools) == calls


def test_pages_are_served_for_every_pair(client: TestClient, tmp_path: Path) -> None:
    for target in ("rule", "careful"):
        for mutation in ("alias", "misleading"):
            assert client.get(_url("/pair", target, f"mut:{mutation}")).status_code == 200
