"""The viewer over HTTP: pages, filters, deep links, null scores, unknown costs, redaction."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import pytest
from starlette.testclient import TestClient

from agentmetrology.store.blobs import contents
from agentmetrology.view import create_app, detect_source
from view.view_fixtures import CAMPAIGN, RULE_SEEDS, SECRET, snapshot, table_cells

BASE = "http://127.0.0.1"


@pytest.fixture
def client(store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    """A client of the store viewer; the secret is a credential-named environment variable."""
    monkeypatch.setenv("AGM_VIEW_TEST_API_KEY", SECRET)
    return TestClient(create_app(detect_source(store_dir)), base_url=BASE)


def _episode_url(target: str, seed: int, level: str = "L2", **extra: str) -> str:
    return "/episode?" + urlencode({"campaign": CAMPAIGN, "target": target,
                                    "task": "T3_duplicates", "seed": seed,
                                    "condition": "clean", "level": level, "repeat": 0, **extra})


def test_index_lists_campaigns_with_progress_and_unknown_cost(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200
    rows = table_cells(r.text, "campaigns")
    assert len(rows) == 1
    name, state, planned, done, submitted, agent, infra, remaining, not_launched, cost, _ = \
        rows[0]
    assert (name, state, planned, done, submitted) == (CAMPAIGN, "incomplete", "65", "63", "61")
    # step_limit is the agent's; infra_error recorded + one errored attempt are infrastructure
    assert (agent, infra, remaining, not_launched) == ("1", "2", "2", "0")
    # two unknown costs (the episode with a timed-out request, the errored attempt's request):
    # the store's rule, and never printed as 0
    assert cost == "unknown (2 without a cost)"


def test_campaign_grid_per_target_level_condition(client: TestClient) -> None:
    r = client.get(f"/campaign?name={CAMPAIGN}")
    assert r.status_code == 200
    rows = {(c[0], c[1], c[2]): c for c in table_cells(r.text, "grid")}
    assert set(rows) == {("llm-a", "L2", "clean"), ("rule", "L0", "clean")}
    llm = rows[("llm-a", "L2", "clean")]
    assert llm[3:9] == ["5", "3", "1", "1", "2 (1 errored, not recorded)", "2"]
    # the infra_error's UNKNOWN is a measurement failure: excluded from the mean, never 0
    assert llm[10] == "mean 0.5 over 2 of 2"
    assert llm[11] == "mean 80 over 1 of 1"
    assert rows[("rule", "L0", "clean")][10] == f"mean 1 over {RULE_SEEDS} of {RULE_SEEDS}"


def test_episode_index_is_paginated_with_deep_links(client: TestClient) -> None:
    first = client.get(f"/episodes?campaign={CAMPAIGN}&target=rule")
    assert f"{RULE_SEEDS} administrations match; showing 1–50 (page 1 of 2)" in first.text
    assert len(table_cells(first.text, "episodes")) == 50
    second = client.get(f"/episodes?campaign={CAMPAIGN}&target=rule&page=2")
    rows = table_cells(second.text, "episodes")
    assert [r[4] for r in rows] == [str(s) for s in range(50, RULE_SEEDS)]
    assert 'href="/episodes?campaign=viewtest&amp;target=rule&amp;page=1"' in second.text


@pytest.mark.parametrize(("query", "seeds"), [
    ("target=llm-a&status=pending", ["3", "4"]),
    ("target=llm-a&status=measurement_failure", ["1"]),
    ("target=llm-a&status=step_limit", ["2"]),
    ("target=llm-a&verdict=UNKNOWN", ["1"]),
    ("target=llm-a&verdict=FAIL&scorer=ground_truth_f1", ["2"]),
    ("seed=2&level=L0", ["2"]),
    ("task=T3_duplicates&target=llm-a&seed=0", ["0"]),
    ("task=T9_none", []),
])
def test_filters(client: TestClient, query: str, seeds: list[str]) -> None:
    rows = table_cells(client.get(f"/episodes?{query}").text, "episodes")
    assert [r[4] for r in rows] == seeds


def test_index_shows_null_scores_with_status_and_unknown_cost(client: TestClient) -> None:
    rows = {r[4]: r for r in table_cells(client.get("/episodes?target=llm-a").text, "episodes")}
    assert rows["1"][8] == "infra_error (measurement failure)"
    assert rows["1"][11] == "null (UNKNOWN)"  # never 0
    assert rows["0"][10] == "unknown"  # a request of unknown cost: the total is unknown
    assert rows["2"][10] == "0.000000"  # no billable request: a known zero (six decimals)
    assert rows["3"][8] == "pending" and rows["3"][10] == "-" and rows["3"][11] == "not assessed"


def test_episode_page_timeline_and_everything_else(client: TestClient) -> None:
    r = client.get(_episode_url("llm-a", 0))
    assert r.status_code == 200
    events = table_cells(r.text, "timeline")
    assert [(e[0], e[2], e[3], e[4].split()[0]) for e in events] == [
        ("0", "agent", "tool_call", "get_task_info"), ("1", "agent", "tool_call", "fetch_page"),
        ("2", "harness", "decision", "retry"), ("3", "agent", "tool_call", "fetch_page"),
        ("4", "environment", "note", "log"), ("5", "harness", "tool_call", "submit_results"),
        ("6", "grader", "tool_call", "grade_submission")]
    assert "retry of #1" in events[3][4]
    assert "submission" in events[5][4]
    assert '"page": 1' in events[1][5] and "rate limited" in events[1][6]
    assert 'class="actor actor-grader"' in r.text and 'class="ev-harness"' in r.text
    assessments = table_cells(r.text, "assessments")
    assert assessments[1][:4] == ["shape_judge", "1.0.0", "80 PARTIAL",
                                  "run log lacks retry lines"]
    usage = table_cells(r.text, "usage")
    assert [u[7] for u in usage] == ["0.002000", "unknown"]
    assert "Cost <span class=\"null\">unknown</span>" in r.text
    assert 'id="submission"' in r.text and "record_id" in r.text


def test_episode_actor_filter_is_a_deep_link(client: TestClient) -> None:
    r = client.get(_episode_url("llm-a", 0, actor="harness"))
    assert [e[2] for e in table_cells(r.text, "timeline")] == ["harness", "harness"]
    assert "2 of 7 events shown" in r.text


def test_measurement_failure_and_errored_episodes(client: TestClient) -> None:
    r = client.get(_episode_url("llm-a", 1))
    termination = r.text.split('id="termination">', 1)[1].split("</p>", 1)[0]
    assert "infra_error" in termination and "provider timed out after 4 retries" in termination
    assert "measurement failure" in termination
    assert table_cells(r.text, "assessments")[0][2] == "null (UNKNOWN)"
    errored = client.get(_episode_url("llm-a", 4))
    attempts = table_cells(errored.text, "attempts")
    assert attempts[0][1] == "failed" and attempts[0][6] == "worker crashed"
    billable = table_cells(errored.text, "billable")
    assert billable[0][1] == "c0" and billable[0][8] == "unknown"
    assert "No episode recorded" in errored.text


def test_pages_redact_secrets_as_the_store_does(client: TestClient) -> None:
    r = client.get(_episode_url("llm-a", 0))
    assert SECRET not in r.text
    assert "debug dump [redacted]" in r.text


def test_bad_parameters_are_400_and_unknown_keys_404(client: TestClient) -> None:
    assert client.get("/episodes?seed=x").status_code == 400
    assert "seed must be an integer" in client.get("/episodes?seed=x").text
    assert client.get("/episodes?status=done").status_code == 400
    assert client.get("/episodes?page=0").status_code == 400
    assert client.get("/episode?campaign=viewtest").status_code == 400
    assert client.get(_episode_url("nobody", 0)).status_code == 404
    assert client.get(_episode_url("llm-a", 0, actor="robot")).status_code == 400
    assert client.get("/campaign?name=missing").status_code == 404
    assert client.get("/nope").status_code == 404


def test_no_scripts_allowed(client: TestClient) -> None:
    r = client.get("/")
    assert "default-src 'none'" in r.headers["content-security-policy"]
    assert "<script" not in r.text


def test_browsing_never_writes_the_store(store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = snapshot(store_dir)
    client = TestClient(create_app(detect_source(store_dir)), base_url=BASE)
    for path in ("/", f"/campaign?name={CAMPAIGN}", "/episodes", "/episodes?page=2",
                 "/episodes?verdict=PASS", _episode_url("llm-a", 0), _episode_url("llm-a", 4)):
        assert client.get(path).status_code == 200
    assert client.post("/", data={"x": "1"}).status_code == 405
    assert snapshot(store_dir) == before  # same files, bytes and mtimes; no -wal/-shm created


def test_a_store_being_written_is_read_through_its_log(tmp_path: Path) -> None:
    from agentmetrology.store import EvidenceStore
    from view.view_fixtures import build_store

    root = build_store(tmp_path / "s")
    with EvidenceStore.open(root, scrub_env=False) as writer:  # a writer holds the store open
        writer.ledger.conn.execute("SELECT 1")
        client = TestClient(create_app(detect_source(root)), base_url=BASE)
        assert client.get(f"/campaign?name={CAMPAIGN}").status_code == 200


def test_front_page_and_campaign_totals_equal_the_store_status(tmp_path: Path) -> None:
    from agentmetrology.store import EvidenceStore
    from agentmetrology.store.reader import StoreReader
    from view.view_fixtures import build_store, key

    root = build_store(tmp_path / "s")
    reader = StoreReader(root)
    before = reader.overview(CAMPAIGN)
    assert before is not None and before.total["superseded"] == 0
    with EvidenceStore.open(root, scrub_env=False) as st:
        pending = [a for a in st.pending(CAMPAIGN) if a.key == key("llm-a", 3)]
        st.set_not_launched(pending, "max_cost reached")
        run = st.begin_run(CAMPAIGN, "inline")
        assert st.supersede_measurement_failures(CAMPAIGN, run) == 1
        st.end_run(run, "done")
    with EvidenceStore.open_readonly(root, scrub_env=False) as st:
        total = st.status(CAMPAIGN).total
    [summary] = StoreReader(root).summaries()
    expected = {"planned": total.planned, "done": total.done, "submitted": total.submitted,
                "failed_agent": total.failed_agent, "failed_infra": total.failed_infra,
                "errored": total.errored, "not_launched": total.not_launched,
                "remaining": total.remaining, "cost_unknown": total.cost_unknown}
    assert {k: summary[k] for k in expected} == expected
    assert summary["cost"] == pytest.approx(total.cost, abs=1e-12)
    assert (total.not_launched, total.errored, total.superseded, total.unrecorded_requests) == \
        (1, 1, 1, 1)  # every kind the summary reads is present
    # The campaign page's totals (its grid's sums plus what no cell holds) follow the same
    # rules; the reader kept the earlier answer only until the ledger changed.
    overview = reader.overview(CAMPAIGN)
    assert overview is not None and overview is not before
    status = StoreReader(root).campaign(CAMPAIGN)
    assert status is not None
    expected.update(superseded=total.superseded, unrecorded_requests=total.unrecorded_requests)
    assert {k: overview.total[k] for k in expected} == expected
    assert overview.total["cost"] == pytest.approx(total.cost, abs=1e-12)
    assert overview.not_launched_reasons == status.not_launched_reasons == {
        "max_cost reached": 1}
    assert (overview.registration_id, overview.plan_digest, overview.complete) == \
        (status.registration_id, status.plan_digest, status.complete)
    assert reader.overview(CAMPAIGN) is overview  # unchanged ledger: the kept answer
    assert reader.overview("missing") is None


def test_not_launched_counts_are_the_same_without_the_writers_partial_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The not-launched administrations are found through the writer's partial index when the
    store has it, and through the campaign's key index when it does not (a store no writer of
    this version opened): the same front page, grid and reasons."""
    import sqlite3

    from agentmetrology.store import EvidenceStore
    from agentmetrology.store.reader import StoreReader
    from view.view_fixtures import build_store, key

    monkeypatch.setenv("AGM_VERIFY_CACHE", "")  # nothing kept across readers: both computed
    root = build_store(tmp_path / "s")
    with EvidenceStore.open(root, scrub_env=False) as st:
        st.set_not_launched([a for a in st.pending(CAMPAIGN) if a.key == key("llm-a", 3)],
                            "max_cost reached")
    with_index = (StoreReader(root).summaries(), StoreReader(root).overview(CAMPAIGN))
    with sqlite3.connect(root / "ledger.sqlite") as c:
        c.execute("DROP INDEX administrations_not_launched")
    without = (StoreReader(root).summaries(), StoreReader(root).overview(CAMPAIGN))
    assert without == with_index
    # an edited store's index of that name, defined otherwise (SQLite could not answer the
    # campaign page through it: "no query solution"), is not used: the same answers
    with sqlite3.connect(root / "ledger.sqlite") as c:
        c.execute("CREATE INDEX administrations_not_launched ON administrations(campaign) "
                  "WHERE not_launched IS NOT NULL AND seed > 1000")
    assert (StoreReader(root).summaries(), StoreReader(root).overview(CAMPAIGN)) == with_index
    assert with_index[0][0]["not_launched"] == 1
    overview = with_index[1]
    assert overview is not None and overview.not_launched_reasons == {"max_cost reached": 1}
    assert sum(cell["not_launched"] for cell in overview.grid) == 1


def test_a_corrupt_blob_is_said_not_shown(tmp_path: Path) -> None:
    import os
    import sqlite3

    from view.view_fixtures import build_store

    root = build_store(tmp_path / "s")
    with sqlite3.connect(root / "ledger.sqlite") as c:
        [(digest,)] = c.execute(
            "SELECT e.episode_digest FROM episodes e JOIN administrations a "
            "ON a.id = e.administration WHERE a.target = 'llm-a' AND a.seed = 0").fetchall()
    blob = root / "blobs" / digest[:2] / digest[2:]
    os.chmod(blob, 0o644)
    blob.write_bytes(contents(blob.read_bytes()).replace(b"get_task_info", b"get_task_infX"))
    client = TestClient(create_app(detect_source(root)), base_url=BASE)
    page = client.get(_episode_url("llm-a", 0))
    assert page.status_code == 200  # the ledger's part of the page still shows
    assert f"blob {digest} is corrupt" in page.text
    assert "get_task_infX" not in page.text and table_cells(page.text, "assessments")


def test_campaign_page_is_kept_across_viewer_runs_until_the_ledger_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import agentmetrology.store.reader as reader_module
    from agentmetrology.store import EvidenceStore
    from view.view_fixtures import build_store, key

    monkeypatch.setenv("AGM_VERIFY_CACHE", str(tmp_path / "cache"))
    root = build_store(tmp_path / "s")
    page = f"/campaign?name={CAMPAIGN}"
    first = TestClient(create_app(detect_source(root)), base_url=BASE).get(page).text
    assert len(list((tmp_path / "cache").glob("*.view.json"))) == 1
    calls: list[str] = []
    real = reader_module.campaign_overview
    monkeypatch.setattr(reader_module, "campaign_overview",
                        lambda c, name: calls.append(name) or real(c, name))
    # A viewer started again on the unchanged store: the same page, without walking the ledger.
    again = TestClient(create_app(detect_source(root)), base_url=BASE).get(page).text
    assert (again, calls) == (first, [])
    with EvidenceStore.open(root, scrub_env=False) as st:
        st.set_not_launched([a for a in st.pending(CAMPAIGN) if a.key == key("llm-a", 3)],
                            "max_cost reached")
    changed = TestClient(create_app(detect_source(root)), base_url=BASE).get(page).text
    assert calls == [CAMPAIGN]
    assert "not launched (1): max_cost reached" in changed
    assert "not launched" not in first


def test_front_page_totals_are_kept_across_viewer_runs_until_the_ledger_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # On a million episodes the totals walk every administration (~1 s): a restarted viewer on
    # an unchanged store reuses them; any write to the ledger computes them again.
    from agentmetrology.store import EvidenceStore
    from agentmetrology.store.reader import StoreReader
    from view.view_fixtures import build_store, key

    monkeypatch.setenv("AGM_VERIFY_CACHE", str(tmp_path / "cache"))
    root = build_store(tmp_path / "s")
    first = TestClient(create_app(detect_source(root)), base_url=BASE).get("/").text
    calls: list[int] = []
    real = StoreReader._summaries
    monkeypatch.setattr(StoreReader, "_summaries",
                        lambda self: calls.append(1) or real(self))
    again = TestClient(create_app(detect_source(root)), base_url=BASE).get("/").text
    assert (again, calls) == (first, [])
    with EvidenceStore.open(root, scrub_env=False) as st:
        st.set_not_launched([a for a in st.pending(CAMPAIGN) if a.key == key("llm-a", 3)],
                            "max_cost reached")
    changed = TestClient(create_app(detect_source(root)), base_url=BASE).get("/").text
    assert calls == [1] and changed != first
    # the campaign page's kept overview and the totals share one memo document
    campaign = f"/campaign?name={CAMPAIGN}"
    TestClient(create_app(detect_source(root)), base_url=BASE).get(campaign)
    docs = list((tmp_path / "cache").glob("*.view.json"))
    assert len(docs) == 1
    doc = json.loads(docs[0].read_text())
    assert set(doc) >= {"campaigns", "summaries"}


def test_the_forms_post_back_keys_that_look_like_credentials(tmp_path: Path) -> None:
    """The filter form's options and the conversation search's hidden key fields held the
    values as shown text, redacted: filtering by the valid target `token:abcdefghijklmnop`
    matched nothing and searching its episode was a 404. They hold the exact values now."""
    import re
    from dataclasses import asdict
    from html import unescape

    from agentmetrology.view.html import Html
    from agentmetrology.view.transcript_search import search_form
    from support import stores

    target = "token:abcdefghijklmnop"
    k = stores.episode_key(0, target=target)
    with stores.open_store(tmp_path) as st:
        st.register_campaign("c1", "p" * 64, {"name": "c1"}, stores.bindings([k]))
        run = st.begin_run("c1", "inline")
        (adm,) = st.pending("c1")
        st.record_episode(st.start_attempt(adm, run, "inline"), *stores.make_episode(k))
        st.end_run(run, "done")
    client = TestClient(create_app(detect_source(tmp_path)), base_url=BASE)
    page = client.get("/episodes").text
    options = re.findall(r'<select name="target">(.*?)</select>', page, re.S)[0]
    value = unescape(re.findall(r'<option value="([^"]+)"', options)[0])
    assert value == target
    assert 'id="count">1 administrations match' in client.get(
        "/episodes?" + urlencode({"target": value})).text
    assert client.get("/episode?" + urlencode(asdict(k))).status_code == 200
    form = search_form(Html(()), k, None)  # an LLM episode's conversation search
    fields = {unescape(n): unescape(v)
              for n, v in re.findall(r'name="([^"]*)" value="([^"]*)"', form)}
    assert fields["target"] == target
    assert client.get("/episode?" + urlencode({**fields, "find": "ok"})).status_code == 200
