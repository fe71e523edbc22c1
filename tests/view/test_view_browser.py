"""The viewer in a real headless browser: Playwright (PyPI) driving the Debian chromium.

Loads the index, opens an episode, reads its events, follows deep links; any console error
or page error fails the test, and a control page shows that the check sees one.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from agentmetrology.view import create_app, detect_source
from view.view_fixtures import CAMPAIGN, live_server

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (dev extra)")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("the Debian chromium is not installed (apt-get install chromium); .ci/run "
                "installs it")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless chromium for the module (never downloaded: the system's own)."""
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
        yield b
        b.close()


class Console:
    """Collects console errors and uncaught page errors of one page."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))


def _with_control(source_path: Path) -> Any:
    """The store viewer plus a control page whose inline script errs (and breaks the CSP)."""
    app = create_app(detect_source(source_path))

    def control(request: Request) -> HTMLResponse:
        return HTMLResponse("<!DOCTYPE html><title>control</title><p>control</p>"
                            "<script>console.error('control error'); undefined_fn();</script>")

    inner = app
    while not hasattr(inner, "router"):  # through the guards to the Starlette app
        inner = inner.app  # type: ignore[attr-defined]
    inner.router.routes.append(Route("/control", control))  # type: ignore[attr-defined]
    return app


def test_browse_store_in_chromium(browser: Any, store_dir: Path) -> None:
    source = detect_source(store_dir)
    with live_server(source) as url:
        page = browser.new_page()
        console = Console(page)
        page.goto(url + "/")
        assert page.title() == "Campaigns · agm view"
        assert page.locator("#campaigns tbody tr").count() == 1
        page.click(f"text={CAMPAIGN}")
        assert page.url == f"{url}/campaign?name={CAMPAIGN}"
        assert page.locator("#grid tbody tr").count() == 2
        # The index, filtered to one target, then one episode opened from it.
        page.goto(f"{url}/episodes?campaign={CAMPAIGN}&target=llm-a")
        assert page.locator("#episodes tbody tr").count() == 5
        page.locator("#episodes tbody tr").first.locator("a").first.click()
        assert "/episode?campaign=viewtest&target=llm-a" in page.url
        actors = page.locator("#timeline tbody tr td:nth-child(3)").all_inner_texts()
        assert actors == ["agent", "agent", "harness", "agent", "environment", "harness",
                          "grader"]
        names = page.locator("#timeline tbody tr td:nth-child(5)").all_inner_texts()
        assert "retry of #1" in names[3] and "submission" in names[5]
        assert "provider" not in page.locator("#termination").inner_text()
        assert page.locator("#termination").inner_text() == "submitted"
        # Follow a deep link (the harness's events), then open the same URL in a new page.
        page.click("text=harness (2)")
        deep = page.url
        assert "actor=harness" in deep
        fresh = browser.new_page()
        fresh_console = Console(fresh)
        fresh.goto(deep)
        assert fresh.locator("#timeline tbody tr").count() == 2
        fresh.goto(f"{url}/episodes?campaign={CAMPAIGN}&target=llm-a&status=pending")
        assert fresh.locator("#episodes tbody tr").count() == 2
        assert fresh.locator("#episodes tbody tr td:nth-child(12)").all_inner_texts() == \
            ["not assessed", "not assessed"]
        assert console.errors == [] and fresh_console.errors == []
        page.close()
        fresh.close()


def test_console_check_sees_errors(browser: Any, store_dir: Path) -> None:
    # Positive control: the same check, on a page that logs an error, must see it.
    with live_server(_with_control(store_dir)) as url:
        page = browser.new_page()
        console = Console(page)
        page.goto(url + "/control")
        page.wait_for_timeout(200)
        assert console.errors, "the console check saw no error on the control page"
        page.close()


def test_audit_dir_and_its_report_in_chromium(browser: Any, audit_dir: Path) -> None:
    with live_server(detect_source(audit_dir)) as url:
        page = browser.new_page()
        console = Console(page)
        page.goto(url + "/")
        assert page.locator("#card tbody tr").count() == 1
        page.click("text=report.html >> nth=0")
        assert page.url == url + "/files/report.html"
        assert page.locator("h1").inner_text() == "Validity card"
        assert "[redacted]" in page.content()
        assert console.errors == []
        page.close()


def test_an_llm_episode_s_conversation_and_its_search_in_chromium(
        browser: Any, llm_store: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    root, requests = llm_store
    with live_server(detect_source(root)) as url:
        page = browser.new_page()
        console = Console(page)
        page.goto(f"{url}/episodes?campaign=tx&target=fake-llm")
        page.locator("#episodes tbody tr").first.locator("a").first.click()
        assert "/episode?campaign=tx&target=fake-llm" in page.url
        # the conversation first, the evidence tables below it
        assert page.locator("#conversation").bounding_box()["y"] \
            < page.locator("#key").bounding_box()["y"]
        responses = len(requests) - 1  # the first request was answered 429, then retried
        assert page.locator("#transcript .turn-assistant").count() == responses
        assert page.locator("#transcript .turn-system").count() == 1
        assert "r001.2 (retry)" in page.locator("#request-1").inner_text()
        page.fill("#transcript-search input[name=find]", "REASONING AT")
        page.click("#transcript-search button")
        assert "find=REASONING+AT" in page.url
        assert page.locator("#search-result").inner_text().startswith(f"{responses} of ")
        assert page.locator("#transcript .match").count() == responses
        page.screenshot(path=str(tmp_path / "conversation.png"), full_page=True)
        assert (tmp_path / "conversation.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert console.errors == []
        page.close()
