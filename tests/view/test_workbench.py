"""The operator workbench (`agm view STORE --workbench`): the case lifecycle from the browser.

Over HTTP (starlette's client): no write without the run's token and the form's csrf field;
each step is the library call `agm cases` makes, recorded in the store; a step out of order is
refused and changes nothing; the plain viewer stays read-only. In chromium: the whole flow
propose → calibrate → admit → use → withdraw, clicked through the forms.
"""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from agentmetrology.store import EvidenceStore
from agentmetrology.store.cases import list_cases
from agentmetrology.view import create_app, detect_source
from agentmetrology.view.workbench_auth import COOKIE, WorkbenchAuth
from assess.test_cases import PERMISSION
from support.agm_runs import agm
from support.stores import record_campaign

BASE = "http://127.0.0.1"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A permission-world store with a failing (overreach) and a passing (within) target."""
    return record_campaign(tmp_path, PERMISSION)


def _ledger(store: Path) -> tuple[Any, ...]:
    """Return the case tables' rows and the chain's length: what a refused step must keep."""
    with closing(sqlite3.connect(store / "ledger.sqlite")) as c:
        return tuple(c.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
                     for t in ("cases", "case_events", "case_uses", "chain"))


def _states(store: Path) -> dict[str, str]:
    with EvidenceStore.open_readonly(store, scrub_env=False) as st:
        return {c.id: c.state for c in list_cases(st)}


def _client(store: Path, auth: WorkbenchAuth, login: bool = True) -> TestClient:
    client = TestClient(create_app(detect_source(store), workbench=auth), base_url=BASE)
    if login:
        r = client.get(f"/workbench/login?token={auth.token}", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/workbench"
        assert "HttpOnly" in r.headers["set-cookie"] and "SameSite=Strict" in \
            r.headers["set-cookie"]
    return client


def _post(client: TestClient, action: str, auth: WorkbenchAuth, **fields: Any) -> Any:
    return client.post(f"/workbench/{action}", data={"csrf": auth.csrf, **fields})


SOURCE = {"campaign": "perm", "target": "overreach", "task": "flag_overdue", "seed": 0,
          "condition": "clean", "level": "L2", "repeat": 0}


def test_the_whole_lifecycle_is_the_library_call_recorded_in_the_store(store: Path) -> None:
    auth = WorkbenchAuth()
    client = _client(store, auth)
    page = client.get("/workbench")
    assert page.status_code == 200 and 'id="sources"' in page.text
    assert page.text.count("propose a case") == 2  # overreach seeds 0 and 1 fail the contract
    r = _post(client, "propose", auth, **SOURCE)
    assert r.status_code == 200, r.text
    (case_id,) = _states(store)
    assert f"{case_id}: proposed from perm/overreach/flag_overdue/seed=0" in r.text
    assert "a case exists" in r.text  # the proposed source is no longer offered
    r = _post(client, "calibrate", auth, case=case_id, positive="scripted:within")
    assert r.status_code == 200 and f"{case_id}: calibrated" in r.text, r.text
    r = _post(client, "admit", auth, case=case_id, reviewer="ana", revision="r1")
    assert r.status_code == 200 and "admitted (revision r1, reviewer ana)" in r.text
    r = _post(client, "use", auth, case=case_id, agent="scripted:within")
    assert r.status_code == 200 and f"{case_id}: use 1 by scripted:within" in r.text, r.text
    r = _post(client, "withdraw", auth, case=case_id, reason="superseded")
    assert r.status_code == 200 and "withdrawn (1 earlier use(s) kept)" in r.text
    assert _states(store) == {case_id: "withdrawn"}
    # The shell sees the same ledger the browser wrote, receipts included.
    listed = agm("cases", "list", "--store", str(store))
    assert listed.returncode == 0 and f"{case_id}  withdrawn" in listed.stdout
    assert "uses 1" in listed.stdout
    assert agm("evidence", "verify", str(store)).returncode == 0


def test_a_step_out_of_order_is_refused_and_changes_nothing(store: Path) -> None:
    auth = WorkbenchAuth()
    client = _client(store, auth)
    _post(client, "propose", auth, **SOURCE)
    (case_id,) = _states(store)
    before = _ledger(store)
    for action, fields in (("admit", {"reviewer": "ana", "revision": "r1"}),
                           ("use", {"agent": "scripted:within"}),
                           ("propose", SOURCE)):
        r = _post(client, action, auth, **({"case": case_id} | fields))
        assert r.status_code == 409 and 'class="status-INVALID"' in r.text, (action, r.text)
        assert "refused:" in r.text
        assert _ledger(store) == before, action
    assert _states(store) == {case_id: "proposed"}


def test_no_write_without_the_token_or_the_csrf_field(store: Path) -> None:
    auth = WorkbenchAuth()
    before = _ledger(store)
    anonymous = _client(store, auth, login=False)
    assert anonymous.get("/workbench").status_code == 403
    assert anonymous.get("/workbench/login?token=wrong").status_code == 403
    r = _post(anonymous, "propose", auth, **SOURCE)  # the csrf field alone is not enough
    assert r.status_code == 403 and "no workbench token" in r.text
    forged = _client(store, auth, login=False)
    forged.cookies.set(COOKIE, "not-the-token")
    assert _post(forged, "propose", auth, **SOURCE).status_code == 403
    logged_in = _client(store, auth)
    r = logged_in.post("/workbench/propose", data=SOURCE)  # no csrf field
    assert r.status_code == 403 and "csrf" in r.text
    r = logged_in.post("/workbench/propose", data={**SOURCE, "csrf": "0" * 64})
    assert r.status_code == 403
    r = logged_in.post("/workbench/propose", data={"csrf": auth.csrf, **SOURCE},
                       headers={"Origin": "http://evil.example"})
    assert r.status_code == 403  # another site's page, refused by the request guard
    assert _post(logged_in, "nothing", auth).status_code == 404
    # Non-ASCII where the token or the csrf field goes is refused (it was a 500: TypeError in
    # hmac.compare_digest); so is a form that is not UTF-8.
    assert anonymous.get("/workbench/login?token=%C3%A9").status_code == 403
    raw_cookie = f"{COOKIE}=caf\u00e9".encode()
    assert anonymous.get("/workbench", headers={"Cookie": raw_cookie}).status_code == 403
    r = logged_in.post("/workbench/propose", data={**SOURCE, "csrf": "\u00e9" * 64})
    assert r.status_code == 403 and "csrf" in r.text
    r = logged_in.post("/workbench/propose", content=b"csrf=\xff\xfe&campaign=perm",
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 403
    assert _ledger(store) == before


def test_without_workbench_the_viewer_stays_read_only(store: Path) -> None:
    client = TestClient(create_app(detect_source(store)), base_url=BASE)
    assert client.post("/workbench/propose", data=SOURCE).status_code == 405
    assert client.get("/workbench").status_code == 404


def test_a_key_that_looks_like_a_credential_is_proposed_from_the_page_s_own_form(
        tmp_path: Path) -> None:
    """The form's hidden fields carried the key as shown text, redacted: the valid target name
    `token:abcdefghijklmnop` became `token:[redacted]` and proposing from the page was a 409
    (no episode recorded for it). The fields now hold the exact values."""
    target = "token:abcdefghijklmnop"
    store = record_campaign(tmp_path, PERMISSION.replace('name = "overreach"',
                                                              f'name = "{target}"'))
    auth = WorkbenchAuth()
    client = _client(store, auth)
    page = client.get("/workbench").text
    form = re.findall(r'<form method="post" action="/workbench/propose"[^>]*>(.*?)</form>',
                      page, re.S)[0]
    fields = {unescape(n): unescape(v)
              for n, v in re.findall(r'name="([^"]*)" value="([^"]*)"', form)}
    assert fields["target"] == target
    r = client.post("/workbench/propose", data=fields)
    assert r.status_code == 200 and "proposed from perm/" in r.text  # shown redacted
    (case_id,) = _states(store)
    assert _states(store) == {case_id: "proposed"}


def test_the_cli_refuses_a_workbench_on_a_file_or_off_loopback(tmp_path: Path,
                                                               store: Path) -> None:
    other = tmp_path / "x.json"
    other.write_text("{}")
    res = agm("view", str(store), "--workbench", "--host", "0.0.0.0", "--port", "0")
    assert res.returncode == 2 and "loopback only" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_reports_are_listed_with_their_qualification_and_rechecked(store: Path,
                                                                   tmp_path: Path) -> None:
    audit = tmp_path / "audit"
    assert agm("archive", "audit", str(store), "--out", str(audit)).returncode == 0
    edited = tmp_path / "edited"
    edited.mkdir()
    doc = json.loads((audit / "archive.json").read_text())
    doc["score_rows"][0]["score"] = 0.5  # no longer hashes to its id
    (edited / "archive.json").write_text(json.dumps(doc))
    auth = WorkbenchAuth()
    client = TestClient(create_app(detect_source(store), workbench=auth,
                                   reports=[audit, edited]), base_url=BASE)
    assert client.get(f"/workbench/login?token={auth.token}").status_code == 200
    page = client.get("/workbench").text
    assert re.search(r'id="report-0">qualified<', page)
    assert re.search(r'id="report-1">invalid_binding<', page)
    # says what "qualified" covers: the binding, not the numbers (never recomputed here)
    assert page.count("numbers NOT re-derived from the store: qualify checked") == 2
    assert "score_row_changed" in page and page.count('value="qualify"') == 2
    # The report repaired on disk: the page keeps the last result until re-checked.
    (edited / "archive.json").write_text((audit / "archive.json").read_text())
    assert re.search(r'id="report-1">invalid_binding<', client.get("/workbench").text)
    before = _ledger(store)
    stranger = TestClient(create_app(detect_source(store), workbench=auth,
                                     reports=[audit, edited]), base_url=BASE)
    assert _post(stranger, "qualify", auth, report=1).status_code == 403  # no token
    assert client.post("/workbench/qualify", data={"report": 1}).status_code == 403  # no csrf
    r = _post(client, "qualify", auth, report=1)
    assert r.status_code == 200 and f"{edited}: qualified" in r.text
    assert re.search(r'id="report-1">qualified<', r.text)
    assert _post(client, "qualify", auth, report=7).status_code == 409
    assert _ledger(store) == before  # checking writes nothing
    res = agm("view", str(store), "--report", str(audit), "--port", "0")
    assert res.returncode == 2 and "add --workbench" in res.stderr
    res = agm("view", str(store), "--workbench", "--report", str(tmp_path), "--port", "0")
    assert res.returncode == 2 and "holds no report" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_the_flow_in_chromium(store: Path, tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    from view.test_view_browser import CHROMIUM_ARGS, Console, _chromium
    from view.view_fixtures import live_server

    auth = WorkbenchAuth()
    app = create_app(detect_source(store), workbench=auth)
    with live_server(app) as url, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
        page = browser.new_page()
        console = Console(page)
        page.goto(f"{url}/workbench")
        assert "no workbench token" in page.content()  # before the login URL
        console.errors.clear()  # the browser logs that 403 as an error: expected here
        page.goto(auth.login_url(url))
        assert page.url == f"{url}/workbench"
        page.locator("#sources button").first.click()
        outcome = page.locator("#outcome").inner_text()
        case_id = re.match(r"(\S+): proposed", outcome)
        assert case_id is not None, outcome
        page.select_option("select[name=positive]", "scripted:within")
        page.click("button[value=calibrate]")
        assert page.locator("#outcome").inner_text().endswith(
            "calibrated (positive, defect and missingness controls hold)")
        page.fill("input[name=reviewer]", "ana")
        page.fill("input[name=revision]", "r1")
        page.click("button[value=admit]")
        assert "admitted" in page.locator("#outcome").inner_text()
        page.select_option("select[name=agent]", "scripted:within")
        page.click("button[value=use]")
        assert "use 1 by scripted:within" in page.locator("#outcome").inner_text()
        page.fill("input[name=reason]", "superseded")
        page.click("button[value=withdraw]")
        assert "withdrawn" in page.locator("#outcome").inner_text()
        page.screenshot(path=str(tmp_path / "workbench.png"), full_page=True)
        # A page without the login (another context: no cookie) cannot write.
        stranger = browser.new_context()
        refused = stranger.request.post(f"{url}/workbench/withdraw",
                                        form={"case": case_id.group(1), "reason": "x",
                                              "csrf": auth.csrf})
        assert refused.status == 403
        browser.close()
        assert console.errors == []
    assert _states(store) == {case_id.group(1): "withdrawn"}
