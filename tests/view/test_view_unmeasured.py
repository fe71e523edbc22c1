"""A score that measured nothing is never shown as a number: an INVALID assessment that keeps a
number beside its status (the shape judge records 0.0) and any score of a measurement failure
(here a cancelled episode scored PARTIAL 40) read `null (...)` on every page, as `agm export`
gives them null and `agm campaign status` leaves them out of its means."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from starlette.testclient import TestClient

from agentmetrology.records import Assessment, Episode, EpisodeKey, Event, Usage
from agentmetrology.view import create_app, detect_source
from support import stores
from view.view_fixtures import CAMPAIGN, key, table_cells


def _scored(k: EpisodeKey, kind: str, judge: tuple[str, float]) -> tuple[Episode,
                                                                          list[Assessment]]:
    ep = stores.episode(k, kind, events=[Event(0, "agent", "tool_call", "get_task_info", {},
                                               {}, 0.0)],
                        sub=stores.submission(), detail="stopped by the operator"
                        if kind == "cancelled" else "", usage=Usage(1, 0, []))
    return ep, [stores.assessment("ground_truth_f1", "PASS", 1.0),
                stores.assessment("shape_judge", *judge)]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    """A viewer of seed 0 (judge INVALID 0.0), seed 1 (cancelled, PARTIAL 40) and seed 2
    (submitted, PARTIAL 70)."""
    root = tmp_path_factory.mktemp("unmeasured") / "s"
    keys = [key("llm-a", s) for s in range(3)]
    with stores.open_store(root) as st:
        st.register_campaign(CAMPAIGN, "p" * 64, {"name": CAMPAIGN}, stores.bindings(keys))
        run = st.begin_run(CAMPAIGN, "inline")
        adm = {a.key: a for a in st.pending(CAMPAIGN)}
        for k, kind, judge in ((keys[0], "submitted", ("INVALID", 0.0)),
                               (keys[1], "cancelled", ("PARTIAL", 40.0)),
                               (keys[2], "submitted", ("PARTIAL", 70.0))):
            st.record_episode(st.start_attempt(adm[k], run, "inline"), *_scored(k, kind, judge))
        st.end_run(run, "done")
    return TestClient(create_app(detect_source(root)), base_url="http://127.0.0.1")


def test_the_index_shows_no_number_for_an_unmeasured_score(client: TestClient) -> None:
    rows = table_cells(client.get(f"/episodes?campaign={CAMPAIGN}").text, "episodes")
    assert [(r[4], r[-2], r[-1]) for r in rows] == [
        ("0", "1 PASS", "null (INVALID)"),
        ("1", "null (PASS; measurement failure)", "null (PARTIAL; measurement failure)"),
        ("2", "1 PASS", "70 PARTIAL")]


@pytest.mark.parametrize(("seed", "judge"), [(0, "null (INVALID)"),
                                             (1, "null (PARTIAL; measurement failure)"),
                                             (2, "70 PARTIAL")])
def test_the_episode_page_shows_no_number_for_an_unmeasured_score(client: TestClient, seed: int,
                                                                  judge: str) -> None:
    q = urlencode({"campaign": CAMPAIGN, "target": "llm-a", "task": "T3_duplicates",
                   "seed": seed, "condition": "clean", "level": "L2", "repeat": 0})
    rows = table_cells(client.get(f"/episode?{q}").text, "assessments")
    assert [r[2] for r in rows if r[0] == "shape_judge"] == [judge]


def test_the_campaign_mean_is_the_measured_one(client: TestClient) -> None:
    (row,) = table_cells(client.get(f"/campaign?name={CAMPAIGN}").text, "grid")
    # the cell's two parts (the mean; the link to the unscored episodes) meet without a space
    assert row[-1] == "mean 70 over 1 of 21 INVALID"
